#!/usr/bin/env node
// Package bin: the operator CLI (same as `npm run cli --`), run through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCliProcess } = await import('../src/cli/main.ts');
runCliProcess();

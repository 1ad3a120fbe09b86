#!/usr/bin/env node
// Package bin: the operator CLI (same as `npm run cli --`), run through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
process.exit(await runCli(process.argv.slice(2)));

// A bad operator input (CLI flags): the message says which flag and what is accepted.
export class InputError extends Error {}

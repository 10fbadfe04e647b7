#!/usr/bin/env node
// A program for the "command" target: appends its SCANRELAY_* environment as one JSON line to the file named by
// its first argument, and exits with the code in its second (default 0), after writing its third to stderr.
import { appendFileSync } from 'node:fs';

const [out, code = '0', message = ''] = process.argv.slice(2);
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SCANRELAY_')));
appendFileSync(out, `${JSON.stringify(env)}\n`);
if (message) process.stderr.write(`${message}\n`);
process.exit(Number(code));

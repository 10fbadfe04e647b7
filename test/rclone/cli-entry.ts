// A tiny program with only the rclone command mounted, so the end-to-end tests run the real CLI.
import { Command } from 'commander';
import { rcloneCommand } from '../../src/cli/rclone.js';

const program = new Command('scanrelay');
program.addCommand(rcloneCommand());
await program.parseAsync(process.argv);

// `scanrelay explain <path>`: the path doctor on the command line.
import { Command } from 'commander';
import { systemClock } from '../clock.js';
import { createDoctor, explanationText } from '../doctor/explain.js';
import { diskPathState } from '../paths/disk.js';
import { buildTargets } from '../targets/build.js';
import { globalFlags, loadContext } from './context.js';

export function explainCommand(): Command {
  return new Command('explain')
    .description('show every step a path takes: mapping, ignore list, file check, targets and libraries, and what would be scanned')
    .argument('<path>', 'a file or folder as Sonarr/Radarr/Lidarr, the manual page or Google Drive would send it')
    .option('--json', 'print the explanation as JSON')
    .action(async (path: string, opts: { json?: boolean }, cmd: Command) => {
      const { loaded, logger } = loadContext(globalFlags(cmd), { consoleLog: false });
      const config = loaded.config;
      const targets = buildTargets(config, { clock: systemClock, logger });
      const explanation = await createDoctor({ config, targets, pathState: diskPathState })(path);
      process.stdout.write(opts.json ? JSON.stringify(explanation, null, 2) + '\n' : explanationText(explanation));
    });
}

#!/usr/bin/env node
// A stand-in for "Plex Media Scanner": records how it was started (argv, environment, user) and behaves
// like the real one, or fails the ways the real one does, on demand.
//
// FAKE_SCANNER_LOG      file that gets one JSON line per run: {argv, env, user, uid}
// FAKE_SCANNER_FAIL     exit:<code> | permission | crashed | signal:<SIGNAL>   (else the control file)
// FAKE_SCANNER_CONTROL  file holding the same words, read at each run (lets a test change its mind)
// FAKE_SCANNER_SECTIONS JSON [[id, "title"], ...] printed by --list
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

const argv = process.argv.slice(2);
const watched = ['LD_LIBRARY_PATH', 'PLEX_MEDIA_SERVER_APPLICATION_SUPPORT_DIR'];
const env = Object.fromEntries(watched.filter((k) => k in process.env).map((k) => [k, process.env[k]]));
const me = userInfo();

if (process.env.FAKE_SCANNER_LOG) {
  appendFileSync(process.env.FAKE_SCANNER_LOG, JSON.stringify({ argv, env, user: me.username, uid: me.uid }) + '\n');
}

const control = process.env.FAKE_SCANNER_CONTROL;
const failure =
  process.env.FAKE_SCANNER_FAIL ||
  (control && existsSync(control) ? readFileSync(control, 'utf8').trim() : '');

const has = (flag) => argv.includes(flag);
const valueOf = (flag) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
};

if (has('--list')) {
  const sections = process.env.FAKE_SCANNER_SECTIONS
    ? JSON.parse(process.env.FAKE_SCANNER_SECTIONS)
    : [
        [1, 'Movies'],
        [2, 'TV Shows'],
      ];
  for (const [id, title] of sections) process.stdout.write(`  ${id}: ${title}\n`);
} else if (has('--scan')) {
  process.stdout.write("The '--scan' operation is deprecated and will be removed in future versions of Plex Media Server.\n");
  process.stdout.write(`GUI: Scanning section ${valueOf('--section')} at ${valueOf('--directory')}\n`);
}

if (failure.startsWith('exit:')) {
  process.stderr.write('Error: something went wrong\n');
  process.exit(Number(failure.slice(5)) || 1);
} else if (failure === 'permission') {
  // The real scanner prints this and still exits 0, which is why plex_autoscan called it a success.
  process.stderr.write(
    'Error: Unable to set up server: boost::filesystem::create_directories: Permission denied: "/var/lib/plexmediaserver/Library"\n',
  );
  process.exit(0);
} else if (failure === 'crashed') {
  process.stderr.write('****** PLEX MEDIA SCANNER CRASHED, CRASH REPORT WRITTEN: /tmp/crash.dmp\n');
  process.exit(0);
} else if (failure.startsWith('signal:')) {
  process.kill(process.pid, failure.slice(7));
  setTimeout(() => process.exit(99), 1000);
}

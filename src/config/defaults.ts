// The config.json a new install starts from: base defaults plus worked examples a user edits in place.
//
// The examples describe one consistent layout so that editing it is easier than writing it: Plex sees the
// media under /data/<Library>/, the arr apps' containers under /movies, /tv and /music, the host (where
// scanrelay runs) under /mnt/unionfs/Media/<Library>/, and Google Drive under My Drive/Media/<Library>/.
import { configSchema, newServerPass, type Config } from './schema.js';

const LIBRARIES = [
  { plex: '/data/Movies/', container: '/movies/', host: '/mnt/unionfs/Media/Movies/', drive: 'My Drive/Media/Movies/' },
  { plex: '/data/TV/', container: '/tv/', host: '/mnt/unionfs/Media/TV/', drive: 'My Drive/Media/TV/' },
  { plex: '/data/Music/', container: '/music/', host: '/mnt/unionfs/Media/Music/', drive: 'My Drive/Media/Music/' },
];

/** plex_autoscan's generated list, without its duplicate m4v. */
const VIDEO_AND_AUDIO_EXTENSIONS = [
  'webm', 'mkv', 'flv', 'vob', 'ogv', 'ogg', 'drc', 'gif', 'gifv', 'mng', 'avi', 'mov', 'qt', 'wmv', 'yuv', 'rm',
  'rmvb', 'asf', 'amv', 'mp4', 'm4p', 'm4v', 'mpg', 'mp2', 'mpeg', 'mpe', 'mpv', 'm2v', 'svi', '3gp', '3g2', 'mxf',
  'roq', 'nsv', 'f4v', 'f4p', 'f4a', 'f4b', 'mp3', 'flac', 'ts',
];

/** A complete config for a new install. `random` supplies SERVER_PASS (tests pin it). */
export function defaultConfig(random: () => string = newServerPass): Config {
  return configSchema().parse({
    SERVER_PASS: random(),
    SERVER_PATH_MAPPINGS: Object.fromEntries(LIBRARIES.map((l) => [l.plex, [l.container, l.host, l.drive]])),
    // No SERVER_FILE_EXIST_PATH_MAPPINGS: the "does the file exist yet" check looks where the media server sees
    // the file. plex_autoscan's example ('/mnt/unionfs/Media/' for '/data/') made every import of a setup whose
    // media is elsewhere wait out its checks and be dropped; an old config keeps whatever it holds.
    SERVER_IGNORE_LIST: ['/.grab/', '.DS_Store', 'Thumbs.db'],
    SERVER_SCAN_PRIORITIES: { '0': ['/Movies/'], '1': ['/TV/'], '2': ['/Music/'] },
    PLEX_EMPTY_TRASH_CONTROL_FILES: ['/mnt/unionfs/mounted.bin'],
    RCLONE: {
      RC_CACHE_REFRESH: { FILE_EXISTS_TO_REMOTE_MAPPINGS: { 'Media/': ['/mnt/unionfs/Media/'] } },
    },
    GOOGLE: {
      ALLOWED: {
        FILE_PATHS: LIBRARIES.map((l) => l.drive),
        FILE_EXTENSIONS: true,
        FILE_EXTENSIONS_LIST: VIDEO_AND_AUDIO_EXTENSIONS,
        MIME_TYPES: true,
        // "audio" too, or the Music folder above could never pass the filter.
        MIME_TYPES_LIST: ['video', 'audio'],
      },
    },
  });
}

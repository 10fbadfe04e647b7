// Where one requested path goes before it is queued: SERVER_PATH_MAPPINGS, the ignore list, file or folder
// (the disk for 'auto', else the extension), and where the file-exist check looks. The intake and the path
// doctor both call routePath, so the doctor can never predict something the intake does not do.
import type { PathState } from './disk.js';
import { baseName, parentFolder, trimTrailingSeparator } from './folder.js';
import { ignoredBy, mapPath, type MappingMatch, type PathMappings } from './mapping.js';

export interface IntakeSettings {
  pathMappings: PathMappings;
  fileExistMappings: PathMappings;
  ignoreList: string[];
  priorities: Record<string, string[]>;
  /** SERVER_SCAN_DELAYS (seconds), keyed by "source:event", event or source, in any case. */
  scanDelays?: Record<string, number>;
}

/** The intake's settings from the config's SERVER_* keys (the service and `scanrelay reconcile` build one alike). */
export function intakeSettingsOf(config: {
  SERVER_PATH_MAPPINGS: PathMappings;
  SERVER_FILE_EXIST_PATH_MAPPINGS: PathMappings;
  SERVER_IGNORE_LIST: string[];
  SERVER_SCAN_PRIORITIES: Record<string, string[]>;
  SERVER_SCAN_DELAYS?: Record<string, number>;
}): IntakeSettings {
  return {
    pathMappings: config.SERVER_PATH_MAPPINGS,
    fileExistMappings: config.SERVER_FILE_EXIST_PATH_MAPPINGS,
    ignoreList: config.SERVER_IGNORE_LIST,
    priorities: config.SERVER_SCAN_PRIORITIES,
    scanDelays: config.SERVER_SCAN_DELAYS,
  };
}

/** The steps every path takes before it is queued, shared by the intake and the path doctor. */
export interface Route {
  mapped: string;
  match?: MappingMatch;
  ignoredBy?: string;
  kind: 'file' | 'folder';
  folder: string;
  /** Where the file-exist check looks (SERVER_FILE_EXIST_PATH_MAPPINGS) and what it found there ('auto' only). */
  local: { path: string; match?: MappingMatch; state?: PathState };
}

/** Maps, filters and classifies one path; `kind: 'auto'` asks the disk (through the file-exist mapping), else the extension. */
export async function routePath(
  path: string,
  kind: 'file' | 'folder' | 'auto',
  settings: IntakeSettings,
  pathState: (path: string) => Promise<PathState>,
): Promise<Route> {
  if (kind !== 'auto') return routeKnown(path, kind, settings);
  const mapped = mapPath(path.normalize('NFC'), settings.pathMappings).path;
  const state = await pathState(mapPath(mapped, settings.fileExistMappings).path);
  const route = routeKnown(path, state === 'folder' ? 'folder' : state === 'file' ? 'file' : hasMediaExtension(mapped) ? 'file' : 'folder', settings);
  return { ...route, local: { ...route.local, state } };
}

/** The same for a path whose kind the sender already said (webhooks, Drive): no look at the disk. */
export function routeKnown(received: string, kind: 'file' | 'folder', settings: IntakeSettings): Route {
  // One spelling of a path: "Amélie" sent precomposed (NFC) or decomposed (NFD, as macOS names files) is one
  // folder in the queue. The spelling to send is found again on the disk, or taken from the request (checks.ts).
  const path = received.normalize('NFC');
  const { path: mapped, match } = mapPath(path, settings.pathMappings);
  const local = mapPath(mapped, settings.fileExistMappings);
  return {
    mapped,
    match,
    ignoredBy: ignoredBy([path, mapped], settings.ignoreList),
    kind,
    folder: kind === 'folder' ? trimTrailingSeparator(mapped) : parentFolder(mapped),
    local: { path: local.path, match: local.match },
  };
}

/** Extensions that make a not-yet-existing path a file rather than a folder. */
const MEDIA_EXTENSIONS = new Set(
  (
    'webm mkv flv vob ogv ogg drc gif gifv mng avi mov qt wmv yuv rm rmvb asf amv mp4 m4p m4v mpg mp2 mpeg mpe mpv m2v ' +
    'svi 3gp 3g2 mxf roq nsv f4v f4p f4a f4b mp3 flac ts m2ts iso wav aac m4a m4b opus wma alac ape dsf srt ass ssa sub ' +
    'idx vtt sup nfo jpg jpeg png epub mobi azw azw3 pdf cbz cbr'
  ).split(' '),
);

export function hasMediaExtension(path: string): boolean {
  const name = baseName(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 && MEDIA_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

// What the path doctor finds for one path: every step it takes and each target's verdict.
import type { PathState } from '../paths/disk.js';
import type { MappingMatch } from '../paths/mapping.js';
import type { Library } from '../scan.js';
import type { Candidate, MappingSuggestion } from './suggest.js';

export interface TargetVerdict {
  name: string;
  kind: string;
  /** The folder as this server names it (after its TARGETS[].PATH_MAPPINGS). */
  path: string;
  rewrite: MappingMatch | null;
  excluded: string | null;
  /** Libraries holding the folder ([] for a target that takes any folder); null when the server could not be asked. */
  matches: Library[] | null;
  /** Every library the server reported (shown when none holds the folder). */
  known: Library[];
  error: string | null;
  /** What the scan would ask of the server, when the target can say (Jellyfin/Emby: the item refreshed). */
  scan?: string;
  verdict: 'scan' | 'unmatched' | 'excluded' | 'unknown';
}

export interface Explanation {
  input: string;
  mapping: { match: MappingMatch | null; result: string; configured: number };
  ignore: { list: string[]; matchedBy: string | null };
  kind: 'file' | 'folder';
  folder: string;
  fileExist: { match: MappingMatch | null; path: string; state: PathState; checked: boolean };
  priority: number;
  targets: TargetVerdict[];
  /** What would be scanned: one entry per target that would take the folder. */
  wouldScan: { target: string; path: string; libraries: string[] }[];
  /** `gives-up`: a library takes the folder, but the file is not where the existence check looks, so it would wait out its checks and be dropped. */
  verdict: 'scan' | 'gives-up' | 'ignored' | 'unmatched' | 'no-targets' | 'unknown';
  summary: string;
  candidates: Candidate[];
  /** A SERVER_PATH_MAPPINGS entry that would make the path reach a library, when one can be guessed. */
  suggestion: MappingSuggestion | null;
}

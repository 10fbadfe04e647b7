// What the processor is told by the config: the existence checks, anchors, retries and commands.
import type { PathMappings } from '../paths/mapping.js';

export interface ProcessorSettings {
  /** SERVER_FILE_EXIST_PATH_MAPPINGS: media-server path -> path where this service can stat the file. */
  fileExistMappings: PathMappings;
  /** SERVER_MAX_FILE_CHECKS (0 = no check). */
  maxFileChecks: number;
  /** SERVER_FILE_CHECK_DELAY in ms. */
  fileCheckDelayMs: number;
  /** SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION. */
  folderOnExhaustion: boolean;
  /** SERVER_ANCHOR_FILES (+ PLEX_EMPTY_TRASH_CONTROL_FILES where configured): all must exist before any scan. */
  anchors: string[];
  /** Cap of a folder's retry backoff (SERVER_SCAN_RETRY_MAX_DELAY in ms). */
  retryMaxDelayMs: number;
  /** RUN_COMMAND_BEFORE_SCAN / RUN_COMMAND_AFTER_SCAN ('' = none), for every target kind. */
  commandBefore?: string;
  commandAfter?: string;
  /** How often an idle target that is up is asked whether it still answers (a wrong token shows at once). */
  idleProbeMs?: number;
  /** How long stop() waits for scans in flight before leaving them queued (default 5 s). */
  stopGraceMs?: number;
}

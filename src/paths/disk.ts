// What the disk this service sees says of a path: a file, a folder, or nothing there. Intake, the existence
// checks and the path doctor all ask through this (tests pass their own).
import { stat } from '../file-system.js';
import type { PathState } from '../scan.js';

export type { PathState };

export async function diskPathState(path: string): Promise<PathState> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

// What the disk this service sees says of a path: a file, a folder, or nothing there. Intake, the existence
// checks and the path doctor all ask through this (tests pass their own).
import { stat } from 'node:fs/promises';

export type PathState = 'file' | 'folder' | 'missing';

export async function diskPathState(path: string): Promise<PathState> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

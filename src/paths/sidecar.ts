// Which files to look a media server's item up by: a subtitle or audio sidecar belongs to the video beside it,
// whose item is the one to refresh.
import { baseName, parentFolder } from './folder.js';

const SIDECAR = /\.(srt|ass|ssa|sub|idx|vtt|sup|smi|ac3|eac3|dts|aac|mka)$/i;
const VIDEO_EXTENSIONS = ['mkv', 'mp4', 'm4v', 'avi', 'ts', 'm2ts', 'mov', 'wmv', 'webm'];
/** Language and flag parts Bazarr and the arrs put between a video's name and a sidecar's extension. */
const TAG = /^(?:[a-z]{2,3}(?:-[A-Za-z]{2,4})?|forced|sdh|hi|cc|default|und)$/i;

/**
 * The files whose item to look for: the path itself, or for a sidecar ("Show - S01E01.en.forced.srt") the
 * videos it would belong to ("Show - S01E01.mkv", ".mp4", …), the most likely first.
 */
export function lookupCandidates(file: string): string[] {
  if (!SIDECAR.test(file)) return [file];
  const folder = parentFolder(file);
  const sep = file.includes('\\') && !file.includes('/') ? '\\' : '/';
  const parts = baseName(file).split('.');
  parts.pop();
  const stems: string[] = [];
  while (parts.length > 1 && TAG.test(parts[parts.length - 1])) {
    stems.push(parts.join('.'));
    parts.pop();
  }
  stems.push(parts.join('.'));
  // The shortest stem (all tags removed) is the usual video name; longer ones cover names with dots.
  return stems.reverse().flatMap((stem) => VIDEO_EXTENSIONS.map((ext) => `${folder}${sep}${stem}.${ext}`));
}

// How many bytes of a server's answer each call scanrelay makes will read, in one table: httpFetch
// (src/http/fetch.ts) stops reading and drops the connection past a call's cap, and the call fails as a 500 would.
// A 1.5 GB answer to one /library/metadata call once took the relay to 3.1 GB that it never gave back: an answer
// is read whole before it is parsed, so nothing but a cap keeps a wrong server, a proxy or a bug from filling the
// 512 MB heap. Each cap is what the call needs with room to spare, and says why; none is a setting. Bytes are not
// the whole cost: an answer shaped for the parser ([{},{},…]) costs some 20 times its size once parsed, so every
// answer is also weighed before it is parsed (src/http/json-cost.ts), and no cap read whole is larger than what that
// weighing lets a common answer through at. The answers that grow with a library (an arr app's item list, a page of
// its history) are read in pieces instead, only what is kept of each entry held: their caps are set by the library's
// size, their parse bounded by the piece (test/http/answer-heap.test.ts runs every cap at its size).

/** A cap on one kind of answer: its bytes, and what the answer is, for the log line that says it was dropped. */
export interface AnswerCap {
  readonly bytes: number;
  /** "a Plex metadata item": named in "…, the most a Plex metadata item needs". */
  readonly what: string;
  /** Read in pieces (parseInPieces), not in one JSON.parse: the answers that grow with a library. */
  readonly pieces?: true;
  /** The most heap what is kept of the answer may take (ANSWER_HEAP_BUDGET when unsaid). */
  readonly heap?: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const cap = (bytes: number, what: string, read: Pick<AnswerCap, 'pieces' | 'heap'> = {}): AnswerCap => ({ bytes, what, ...read });

/** 4 MiB, 256 KiB, 900 bytes: a cap as a person reads it. */
export function sizeText(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}

/** A call that states no cap (a test's, a new call's) reads this much: small, so the missing cap shows at once. */
export const UNSTATED_BYTES = 1 * MiB;

// --- any server

/** A scan, refresh, analyze or command accepted: an empty body or a line of JSON; a proxy's HTML error page is a few KB. */
export const ACKNOWLEDGEMENT = cap(256 * KiB, 'an acknowledgement');
/** A probe (Plex's / and /identity, /System/Info/Public, /ping, an arr's system status): about 1-3 KB. */
export const SERVER_STATUS = cap(256 * KiB, "a server's status");
/** One websocket frame of Plex's or Jellyfin/Emby's notifications (ws's maxPayload): small JSON events. */
export const NOTIFICATION_FRAME = cap(4 * MiB, 'a notification frame');

// --- Plex

/** /library/sections: about 1 KB a section with its folders, so thousands of sections. */
export const PLEX_SECTIONS = cap(4 * MiB, 'the Plex section list');
/** /activities: about 0.5 KB for each background task Plex runs; a busy server runs tens. */
export const PLEX_ACTIVITIES = cap(1 * MiB, "Plex's activity list");
/** /library/metadata/{key}: one item with its media, parts and guids: a few KB, a movie with many versions some 100 KB. */
export const PLEX_ITEM = cap(4 * MiB, 'a Plex metadata item');
/** /library/metadata/{key}/children: a season's episodes (about 4 KB each) or a show's seasons: a 5,000-episode daily show fits. */
export const PLEX_CHILDREN = cap(32 * MiB, "a Plex item's children");
/**
 * /library/sections/{id}/all?file=: the item holding one file. A server that ignores the undocumented filter
 * answers the whole section, which proves nothing (src/targets/plex/confirm.ts) and is dropped here rather than read.
 */
export const PLEX_FILE_LOOKUP = cap(4 * MiB, "a Plex lookup of one file's item");
/** One page of 50 recently added items (src/targets/plex/recently-added.ts), about 4 KB each: 80 KB an item is allowed. */
export const PLEX_RECENT_PAGE = cap(4 * MiB, 'a page of recently added Plex items');
/**
 * One page of a section's items with their files (/library/sections/{id}/all?type=, src/plex/section-files.ts): 500
 * items of 2-6 KB (an episode with its media, parts and streams); 64 KB an item is allowed.
 */
export const PLEX_ITEMS_PAGE = cap(32 * MiB, "a page of a Plex section's items");
/** /library/metadata/{key}/matches: the agent's candidates, some 20 of about 1 KB. */
export const PLEX_MATCHES = cap(1 * MiB, "a Plex agent's match candidates");

// --- Jellyfin and Emby

/** /Library/VirtualFolders or Emby's /Library/VirtualFolders/Query: each library with its options, 5-20 KB on Jellyfin 10.10. */
export const MEDIABROWSER_LIBRARIES = cap(8 * MiB, 'a library list of Jellyfin or Emby');
/** One /Items page: at most 500 items (the largest page asked) of 1-2 KB with Fields=Path; 32 KB an item is allowed. */
export const MEDIABROWSER_ITEMS_PAGE = cap(16 * MiB, 'a page of Jellyfin or Emby items');
/** /Users/Me: one user with its policy and configuration, a few KB. */
export const MEDIABROWSER_USER = cap(1 * MiB, 'a Jellyfin user');

// --- the other targets

/**
 * /api/v3/series, /api/v3/movie, /api/v1/artist or /api/v1/author: the app's whole library, unpaged, about 4-5 KB an
 * entry (images, ratings, file): 20,000 movies are some 100 MB. Read in pieces, of each entry only what the reader
 * keeps (its folder; the reconcile's id and file), so the heap holds a piece and what is kept, whatever the size.
 */
export const ARR_LIBRARY = cap(128 * MiB, "an arr app's library list", { pieces: true });
/** The most records of an arr app's history one page asks for (ARR catch-up: GET history, page by page). */
export const ARR_HISTORY_PAGE_SIZE = 500;
/**
 * One page of an arr app's history (ARR_HISTORY_PAGE_SIZE records of about 1-2 KB; 8 KB a record is allowed), read
 * in pieces: a page is all of the history the relay holds at once, so its records may take 16 MiB parsed, no more.
 */
export const ARR_HISTORY_PAGE = cap(4 * MiB, "a page of an arr app's history", { pieces: true, heap: 16 * MiB });
/** One series, movie, artist or author of an arr app (its seasons and images): tens of KB. */
export const ARR_ITEM = cap(4 * MiB, "an arr app's item");
/** An arr app's root folders, Connect entries or their templates, or a saved entry: a few KB each. */
export const ARR_SETTINGS = cap(4 * MiB, "an arr app's settings list");
/** A kind's library list where each library is a name and its folders (Audiobookshelf's /api/libraries): about 1 KB each. */
export const LIBRARY_LIST = cap(4 * MiB, "a server's library list");

// --- Google and rclone

/** One /changes or /files page of 1,000 entries with the fields asked (src/drive/api.ts): about 0.6 KB each. */
export const DRIVE_PAGE = cap(16 * MiB, 'a page of Google Drive changes or files');
/** One file's metadata, or a change cursor: under 1 KB. */
export const DRIVE_ITEM = cap(1 * MiB, 'a Google Drive item');
/** One page of 100 shared drives (id and name): under 10 KB. */
export const DRIVE_DRIVES_PAGE = cap(1 * MiB, 'a page of shared drives');
/** A token endpoint's answer: an access token of about 2 KB, a refresh token, a scope; or an RFC 6749 error. */
export const OAUTH_TOKEN = cap(64 * KiB, 'an OAuth token answer');
/** rclone's remote control: a status, or vfs/refresh's verdict on the one folder asked. */
export const RCLONE_ANSWER = cap(1 * MiB, "rclone's remote-control answer");

// --- notifiers

/** Discord's 204 (or its message, about 1 KB), ntfy's and Gotify's stored message, Apprise's status: never read. */
export const NOTIFIER_ANSWER = cap(256 * KiB, "a notifier's answer");

// What the Jellyfin/Emby follower keeps of each follow-up it waits on, and its key (a folder's row and generation).
import type { FollowItem } from '../../scan.js';
import type { MediaBrowserTicket } from './verdict.js';

export interface Followed {
  key: string;
  item: FollowItem;
  ticket: MediaBrowserTicket;
  /** When follow() was called: the socket watched the follow-up only if it was open since. */
  followedAt: number;
  listing: boolean;
  lastError?: string;
  /** Since when a listing found the file missing while the server's queue was busy. */
  busySince?: number;
}

export const keyOf = (item: FollowItem) => `${item.ref.folderId}:${item.ref.generation}`;

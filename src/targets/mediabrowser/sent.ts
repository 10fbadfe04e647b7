// What a Jellyfin or Emby scan asked of the server, as the target hands it to its follow-up: how the folder went
// (an item refreshed, the library, the plugin, the monitor) and which item was refreshed.
import type { ScanOutcome } from '../../scan.js';
import type { MediaBrowserTicket } from './verdict.js';

export type Sent = Pick<MediaBrowserTicket, 'via' | 'item'>;
export type SentOutcome = ScanOutcome & { sent?: Sent };

/** The arr events that delete a whole folder (Sonarr's SeriesDelete, Radarr's MovieDelete, Lidarr's, Readarr's). */
export const FOLDER_DELETES = /^(Series|Movie|Artist|Author|Album|Book)Delete$/;

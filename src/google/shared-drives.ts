// The shared drives an account can see (Drive API drives.list, every page): the monitor matches GOOGLE.TEAMDRIVES
// against them, the rclone wizard offers them as team_drive.
import { DRIVE_DRIVES_PAGE } from '../http/answer-caps.js';
import { httpFetch } from '../http/fetch.js';

export interface SharedDrive {
  id: string;
  name: string;
}

export interface DrivesPage {
  drives?: Array<{ id?: string; name?: string }>;
  nextPageToken?: string;
}

/** Every page of drives.list; `getPage` does the authenticated GET of /drive/v3/drives with this query. */
export async function listSharedDrives(getPage: (query: Record<string, string>) => Promise<DrivesPage>): Promise<SharedDrive[]> {
  const drives: SharedDrive[] = [];
  let pageToken: string | undefined;
  do {
    const query: Record<string, string> = { pageSize: '100', fields: 'nextPageToken,drives(id,name)' };
    if (pageToken) query.pageToken = pageToken;
    const page = await getPage(query);
    for (const d of page.drives ?? []) if (d.id) drives.push({ id: d.id, name: d.name ?? '' });
    pageToken = page.nextPageToken;
  } while (pageToken);
  return drives;
}

/** One page with a bare access token, no retries: for a person at the wizard, who sees the error at once. */
export function bearerDrivesPage(apiBase: string, accessToken: string): (query: Record<string, string>) => Promise<DrivesPage> {
  return async (query) => {
    const url = new URL(`${apiBase.replace(/\/+$/, '')}/drive/v3/drives`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await httpFetch(url, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' }, maxBytes: DRIVE_DRIVES_PAGE.bytes });
    const body = (await res.json().catch(() => ({}))) as DrivesPage & { error?: { message?: string } };
    if (!res.ok) throw new Error(`listing shared drives failed: ${res.status} ${body.error?.message ?? res.statusText}`);
    return body;
  };
}

// The account's shared drives (Drive API drives.list, every page), offered when the remote is
// configured as a shared drive. SCANRELAY_DRIVE_API_URL points it at a private or test endpoint.

export interface SharedDrive {
  id: string;
  name: string;
}

export const DRIVE_API_URL = 'https://www.googleapis.com';

export function driveApiBase(env: NodeJS.ProcessEnv = process.env): string {
  return (env.SCANRELAY_DRIVE_API_URL || DRIVE_API_URL).replace(/\/+$/, '');
}

export async function listSharedDrives(accessToken: string, base: string = driveApiBase()): Promise<SharedDrive[]> {
  const drives: SharedDrive[] = [];
  let pageToken: string | undefined;
  do {
    const url = new URL(`${base}/drive/v3/drives`);
    url.searchParams.set('pageSize', '100');
    if (pageToken) url.searchParams.set('pageToken', pageToken);
    const res = await fetch(url, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
    const body = (await res.json().catch(() => ({}))) as {
      drives?: Array<{ id?: string; name?: string }>;
      nextPageToken?: string;
      error?: { message?: string };
    };
    if (!res.ok) throw new Error(`listing shared drives failed: ${res.status} ${body.error?.message ?? res.statusText}`);
    for (const d of body.drives ?? []) if (d.id) drives.push({ id: d.id, name: d.name ?? '' });
    pageToken = body.nextPageToken;
  } while (pageToken);
  return drives;
}

// The in-process feed of what the service does (requests, checks, scans); metrics and live pages listen here.
import { EventEmitter } from 'node:events';

export interface ActivityEvents {
  request: [{ source: string; event: string; folders: number; outcome: 'queued' | 'test' | 'ignored' | 'unmatched' | 'rejected' }];
  queued: [{ folder: string; merged: boolean; source: string; event: string }];
  delivery: [
    {
      folder: string;
      target: string;
      outcome: 'scanned' | 'unmatched' | 'refused' | 'retry';
      detail?: string;
      /** ms from the folder's first request to this answer. */
      latencyMs: number;
      /** ms this delivery took: from the folder being ready (or the retry being due) to the server's answer. */
      deliveryMs?: number;
    },
  ];
  followed: [{ folder: string; target: string; outcome: 'confirmed' | 'not-found' | 'unconfirmed' | 'scanned'; detail: string; followMs: number }];
  finished: [{ folder: string; outcome: string; detail?: string }];
  target: [{ target: string; up: boolean; error?: string }];
}

export class Activity extends EventEmitter<ActivityEvents> {
  constructor() {
    super();
    this.setMaxListeners(100);
  }
}

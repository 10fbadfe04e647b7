// The websocket of a Jellyfin or Emby follower: open only while follow-ups wait (opened with the first, closed
// when the last ends), never for a token known to be an API key's (the server sends that one no LibraryChanged),
// so there is no socket and no reconnect loop against a server there is nothing to ask. It says since when it has
// been open (the follower's "did the socket watch this follow-up") and hands each LibraryChanged on.
import type { Logger } from '../../log/logger.js';
import type { LibraryChangedEvent, MediaBrowserEvent, MediaBrowserSocket } from './socket.js';

export interface FollowSocketOptions {
  /** "Jellyfin" or "Emby", for logs. */
  server: string;
  logger: Logger;
  socket?: MediaBrowserSocket;
  /** Does the token belong to a user (Jellyfin: GET /Users/Me)? Undefined: cannot tell before a LibraryChanged comes. */
  tokenHasUser?: () => Promise<boolean | undefined>;
  onChanged(e: LibraryChangedEvent): void;
}

export class FollowSocket {
  /** true: the token has a user, LibraryChanged comes; false: an API key's, it never does; undefined: not known. */
  userToken?: boolean;
  private unsubscribe?: () => void;
  /** Opens and closes, one after the other. */
  private turn: Promise<void> = Promise.resolve();

  constructor(private readonly opts: FollowSocketOptions) {}

  /** Since when the socket has been open; undefined while it is not. */
  get connectedSince(): number | undefined {
    return this.opts.socket?.connectedSince;
  }

  /** Could LibraryChanged reach us at all: a socket, and a token not known to be an API key's. */
  get usable(): boolean {
    return this.opts.socket !== undefined && this.userToken !== false;
  }

  /** Opens the socket unless it is open, unusable, or `wanted()` is false by the time the token is known. */
  open(wanted: () => boolean): void {
    if (!this.usable || this.unsubscribe) return;
    this.turn = this.turn.then(async () => {
      if (this.userToken === undefined) await this.learnToken();
      if (!this.usable || this.unsubscribe || !wanted()) return;
      this.unsubscribe = this.opts.socket!.subscribe((e) => this.onEvent(e));
      this.opts.socket!.start();
    });
  }

  /** Closes the socket unless `stillWanted()`: a close we asked for is no drop to warn of. */
  close(stillWanted: () => boolean = () => false): Promise<void> {
    this.turn = this.turn.then(async () => {
      if (!this.unsubscribe || stillWanted()) return;
      this.unsubscribe();
      this.unsubscribe = undefined;
      await this.opts.socket?.stop();
    });
    return this.turn;
  }

  private async learnToken(): Promise<void> {
    try {
      this.userToken = (await this.opts.tokenHasUser?.()) ?? this.userToken;
    } catch (err) {
      this.opts.logger.debug({ err: String(err) }, 'could not tell whether the token belongs to a user');
      return;
    }
    if (this.userToken === false) {
      this.opts.logger.info(
        `${this.opts.server}'s token belongs to no user (an API key): the server sends it no LibraryChanged, so its websocket is not opened and each delivered file is confirmed by listing the refreshed folder once its refresh is over.`,
      );
    }
  }

  private onEvent(e: MediaBrowserEvent): void {
    if (e.kind === 'connection') return;
    // Only a socket whose token has a user is sent LibraryChanged: this one has.
    if (this.userToken !== true) this.opts.logger.debug(`${this.opts.server} sends LibraryChanged to this token: it belongs to a user.`);
    this.userToken = true;
    this.opts.onChanged(e);
  }
}

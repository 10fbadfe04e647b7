// The LibraryChanged message pinned to its sources: the names our parser (src/targets/mediabrowser/socket.ts)
// reads are exactly the property names of @jellyfin/sdk's generated model (LibraryChangedMessage,
// LibraryUpdateInfo: node_modules/@jellyfin/sdk/lib/generated-client/models/library-changed-message.d.ts and
// library-update-info.d.ts), which is generated from the server's OpenAPI. On the server the class is
// jellyfin@9fd01fa MediaBrowser.Model/Entities/LibraryUpdateInfo.cs L29-57: string[] FoldersAddedTo (L29),
// FoldersRemovedFrom (L35), ItemsAdded (L41), ItemsRemoved (L47), ItemsUpdated (L53), CollectionFolders (L55),
// and the computed bool IsEmpty (L57). The envelope {MessageType, Data, MessageId} is the SDK's too.
// A field the SDK renames or adds fails the typecheck of `full` below; one our parser names differently fails here.
import type { LibraryChangedMessage } from '@jellyfin/sdk/lib/generated-client/models/library-changed-message.js';
import type { LibraryUpdateInfo } from '@jellyfin/sdk/lib/generated-client/models/library-update-info.js';
import { describe, expect, it } from 'vitest';
import { LIBRARY_UPDATE_LISTS, parseLibraryChanged } from '../../src/targets/mediabrowser/socket.js';
import { libraryChangedFrame } from '../fakes/mediabrowser-socket.js';

// Every property of the SDK's model, each with its own value: Required<> makes a property the SDK adds or
// renames a type error here, and an excess one too.
const full: Required<LibraryUpdateInfo> = {
  FoldersAddedTo: ['f0a1'],
  FoldersRemovedFrom: ['f0b2'],
  ItemsAdded: ['1a11'],
  ItemsRemoved: ['2b22'],
  ItemsUpdated: ['3c33'],
  CollectionFolders: ['c0c4'],
  IsEmpty: false,
};
const message: Required<LibraryChangedMessage> = { MessageType: 'LibraryChanged', Data: full, MessageId: '0123456789abcdef0123456789abcdef' };

// Our names are the SDK's, at compile time: a key of LIBRARY_UPDATE_LISTS that is not a list of the model fails here.
type OurKeys = keyof typeof LIBRARY_UPDATE_LISTS;
const sdkLists: Record<OurKeys, Array<string> | undefined> = full satisfies Record<OurKeys, Array<string> | undefined>;

describe('LibraryChanged as @jellyfin/sdk and LibraryUpdateInfo.cs define it', () => {
  it('our parser reads exactly the SDK model’s lists (all but the computed IsEmpty)', () => {
    expect(Object.keys(LIBRARY_UPDATE_LISTS).sort()).toEqual(Object.keys(full).filter((k) => k !== 'IsEmpty').sort());
    expect(Object.keys(sdkLists)).toHaveLength(7);
  });

  it("parses the SDK-typed message's JSON into every list", () => {
    expect(parseLibraryChanged(JSON.stringify(message))).toEqual({
      kind: 'library-changed',
      added: ['1a11'],
      updated: ['3c33'],
      removed: ['2b22'],
      foldersAddedTo: ['f0a1'],
      foldersRemovedFrom: ['f0b2'],
      collectionFolders: ['c0c4'],
    });
  });

  it('the fakes build their frames through the same typed shape: every list present, IsEmpty computed', () => {
    const frame = libraryChangedFrame({ ItemsAdded: ['1a11'] }, 'fedcba9876543210fedcba9876543210');
    expect(Object.keys(frame.Data!).sort()).toEqual(Object.keys(full).sort());
    expect(frame).toMatchObject({ MessageType: 'LibraryChanged', Data: { ItemsAdded: ['1a11'], ItemsRemoved: [], IsEmpty: false } });
    expect(libraryChangedFrame({}, 'x').Data!.IsEmpty).toBe(true);
    expect(parseLibraryChanged(JSON.stringify(frame))?.added).toEqual(['1a11']);
  });

  it('a list left out (the server leaves nulls out) reads as empty; another message type is not LibraryChanged', () => {
    expect(parseLibraryChanged(JSON.stringify({ MessageType: 'LibraryChanged', Data: { ItemsRemoved: ['2b22'] } }))).toMatchObject({ added: [], removed: ['2b22'] });
    expect(parseLibraryChanged(JSON.stringify({ ...message, MessageType: 'UserDataChanged' }))).toBeUndefined();
  });
});

// Jellyfin's refresh queue as the server holds it: a .NET PriorityQueue, not a FIFO list. Since 10.9
// ProviderManager keeps `PriorityQueue<(Guid ItemId, MetadataRefreshOptions), RefreshPriority> _refreshQueue`
// (jellyfin/jellyfin@v10.11.11 MediaBrowser.Providers/Manager/ProviderManager.cs:63; commit 9bb1bc5a3e replaced the
// stable SimplePriorityQueue). This is that type's algorithm, step for step, so the model dequeues in the server's
// order: an array-backed quaternary min-heap (dotnet/runtime@0343d46
// src/libraries/System.Collections/src/System/Collections/Generic/PriorityQueue.cs: `Arity = 4`; `Enqueue` →
// `MoveUpDefaultComparer`, which moves a node above its parent only when strictly smaller; `TryDequeue` →
// `RemoveRootNode`, which takes the LAST array node to the root and `MoveDownDefaultComparer`, which stops at the
// first minimal child that is not strictly smaller). Among equal priorities the head runs first and then the
// newest waiting entry: S1 S2 S3 ROOT enqueued into an empty queue run S1, ROOT, S3, S2; with S1 already running
// (the server's loop took it at once) S2, ROOT, S3.
// Priorities: RefreshPriority.High = 0, Normal = 1, Low = 2 (MediaBrowser.Controller/Providers/RefreshPriority.cs:11-21).
export const PRIORITY = { High: 0, Normal: 1, Low: 2 } as const;
export type Priority = keyof typeof PRIORITY;

const ARITY = 4;

export class DotNetPriorityQueue<T> {
  private nodes: { element: T; priority: number }[] = [];

  get size(): number {
    return this.nodes.length;
  }

  /** The elements in the heap's array order (the server's `GetRefreshQueue` reads them unordered too). */
  unordered(): T[] {
    return this.nodes.map((n) => n.element);
  }

  enqueue(element: T, priority: number): void {
    // MoveUpDefaultComparer: the new node starts at the end and rises while strictly smaller than its parent.
    let index = this.nodes.length;
    const node = { element, priority };
    this.nodes.push(node);
    while (index > 0) {
      const parentIndex = (index - 1) >> 2;
      const parent = this.nodes[parentIndex];
      if (node.priority < parent.priority) {
        this.nodes[index] = parent;
        index = parentIndex;
      } else break;
    }
    this.nodes[index] = node;
  }

  dequeue(): T | undefined {
    if (this.nodes.length === 0) return undefined;
    const root = this.nodes[0];
    // RemoveRootNode: the last node goes to the root and sinks.
    const last = this.nodes.pop()!;
    if (this.nodes.length > 0) this.moveDown(last, 0);
    return root.element;
  }

  private moveDown(node: { element: T; priority: number }, start: number): void {
    const size = this.nodes.length;
    let index = start;
    for (let i = index * ARITY + 1; i < size; i = index * ARITY + 1) {
      // The first child with the minimal priority (a later child replaces it only when strictly smaller).
      let minIndex = i;
      for (let c = i + 1; c < Math.min(i + ARITY, size); c++) if (this.nodes[c].priority < this.nodes[minIndex].priority) minIndex = c;
      if (node.priority <= this.nodes[minIndex].priority) break;
      this.nodes[index] = this.nodes[minIndex];
      index = minIndex;
    }
    this.nodes[index] = node;
  }
}

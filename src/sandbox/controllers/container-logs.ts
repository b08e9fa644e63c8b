// The simulated containers' logs: what each container instance printed, kept for the current and
// the previous instance of every container (the kubelet keeps exactly one exited instance, which
// `kubectl logs --previous` reads) and dropped with the pod. The kubelet appends lines as it sees
// an instance start, become ready and end (container-log-lines.ts has their texts); pods/log reads
// them, and follows a running instance through follow(), woken by those appends (no polling).
import type { LogFollower, LogLine, PodLogSource } from '../store-api';

/** Bytes of text one instance keeps: older lines go first, as the head of a rotated log file does. */
export const INSTANCE_LOG_LIMIT_BYTES = 4096;

export interface InstanceState {
  readonly containerID: string;
  readonly ended: boolean;
  readonly ready: boolean;
}

interface Instance extends InstanceState {
  lines: LogLine[];
  bytes: number;
  ended: boolean;
  ready: boolean;
}

interface Slot {
  current?: Instance;
  previous?: Instance;
  /** Followers and the containerID each follows (one the kubelet has not started yet is waited for). */
  followers: Map<LogFollower, string>;
}

/** Epoch milliseconds with a fraction (sub-millisecond precision orders lines written in one ms). */
export type Clock = () => number;

const preciseNow: Clock = () => performance.timeOrigin + performance.now();

export class ContainerLogs implements PodLogSource {
  /** pod uid → container name → its instances. */
  private readonly pods = new Map<string, Map<string, Slot>>();
  private lastMs = 0;
  private lastNs = 0;

  constructor(private readonly clock: Clock = preciseNow) {}

  /** A new instance of the container: the current one becomes the previous (the one before is gone). */
  start(podUid: string, container: string, containerID: string, texts: readonly string[]): void {
    const slot = this.slot(podUid, container, true)!;
    if (slot.current && slot.current.containerID !== containerID) {
      this.finish(slot, slot.current);
      slot.previous = slot.current;
    }
    const inst: Instance = { containerID, lines: [], bytes: 0, ended: false, ready: false };
    slot.current = inst;
    this.write(slot, inst, texts);
    for (const [f, id] of slot.followers) {
      // A follower waiting for an instance that was replaced before it ever started has nothing to read.
      if (id !== containerID && id !== slot.previous?.containerID) {
        slot.followers.delete(f);
        f.end();
      }
    }
  }

  /** Lines of a running instance (a no-op once it ended). */
  append(podUid: string, container: string, containerID: string, texts: readonly string[]): void {
    const slot = this.slot(podUid, container, false);
    const inst = slot && this.find(slot, containerID);
    if (slot && inst && !inst.ended) this.write(slot, inst, texts);
  }

  /** The instance became ready; returns whether that is news (the kubelet logs it once). */
  markReady(podUid: string, container: string, containerID: string): boolean {
    const inst = this.current(podUid, container);
    if (!inst || inst.containerID !== containerID || inst.ready || inst.ended) return false;
    (inst as Instance).ready = true;
    return true;
  }

  /** The instance's last lines; then its followers are told it ended. */
  end(podUid: string, container: string, containerID: string, texts: readonly string[]): void {
    const slot = this.slot(podUid, container, false);
    const inst = slot && this.find(slot, containerID);
    if (!slot || !inst || inst.ended) return;
    this.write(slot, inst, texts);
    this.finish(slot, inst);
  }

  current(podUid: string, container: string): InstanceState | undefined {
    return this.pods.get(podUid)?.get(container)?.current;
  }

  /** Every container's running instance of a pod (for the lines of a pod being stopped). */
  running(podUid: string): Array<{ container: string; containerID: string }> {
    const out: Array<{ container: string; containerID: string }> = [];
    for (const [container, slot] of this.pods.get(podUid) ?? []) if (slot.current && !slot.current.ended) out.push({ container, containerID: slot.current.containerID });
    return out;
  }

  /** The pod is gone: its logs go with it, and whoever follows one is told it ended. */
  dropPod(podUid: string): void {
    const containers = this.pods.get(podUid);
    if (!containers) return;
    this.pods.delete(podUid);
    for (const slot of containers.values()) {
      for (const f of slot.followers.keys()) f.end();
      slot.followers.clear();
    }
  }

  lines(podUid: string, container: string, containerID: string): readonly LogLine[] | undefined {
    const slot = this.slot(podUid, container, false);
    return slot && this.find(slot, containerID)?.lines;
  }

  follow(podUid: string, container: string, containerID: string, follower: LogFollower): () => void {
    const slot = this.slot(podUid, container, false);
    const inst = slot && this.find(slot, containerID);
    if (!slot || inst?.ended) {
      follower.end();
      return () => {};
    }
    slot.followers.set(follower, containerID);
    return () => slot.followers.delete(follower);
  }

  private slot(podUid: string, container: string, create: boolean): Slot | undefined {
    let containers = this.pods.get(podUid);
    if (!containers) {
      if (!create) return undefined;
      this.pods.set(podUid, (containers = new Map()));
    }
    let slot = containers.get(container);
    if (!slot && create) containers.set(container, (slot = { followers: new Map() }));
    return slot;
  }

  private find(slot: Slot, containerID: string): Instance | undefined {
    if (slot.current?.containerID === containerID) return slot.current;
    return slot.previous?.containerID === containerID ? slot.previous : undefined;
  }

  private write(slot: Slot, inst: Instance, texts: readonly string[]): void {
    for (const text of texts) {
      const line = { ...this.stamp(), text };
      inst.lines.push(line);
      inst.bytes += text.length + 1;
      for (const [f, id] of slot.followers) if (id === inst.containerID) f.line(line);
    }
    let drop = 0;
    while (inst.bytes > INSTANCE_LOG_LIMIT_BYTES && drop < inst.lines.length - 1) inst.bytes -= inst.lines[drop++]!.text.length + 1;
    if (drop) inst.lines.splice(0, drop);
  }

  private finish(slot: Slot, inst: Instance): void {
    inst.ended = true;
    for (const [f, id] of slot.followers) {
      if (id !== inst.containerID) continue;
      slot.followers.delete(f);
      f.end();
    }
  }

  /** Strictly increasing timestamps, so lines keep their order under any clock. */
  private stamp(): { ms: number; ns: number } {
    const t = this.clock();
    let ms = Math.floor(t);
    let ns = Math.floor((t - ms) * 1e6);
    if (ms < this.lastMs || (ms === this.lastMs && ns <= this.lastNs)) {
      ms = this.lastMs;
      ns = this.lastNs + 1;
      if (ns >= 1e6) {
        ms += 1;
        ns = 0;
      }
    }
    this.lastMs = ms;
    this.lastNs = ns;
    return { ms, ns };
  }
}

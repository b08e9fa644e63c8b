// How far the pre-download jobs we created are, judged from what our watches have seen of them:
// one ImagePullJob per image, or one ImageListPullJob and the ImagePullJob Kruise makes per image.
// The two kinds come through separate watches, with no order between them: the list job can read
// complete before the last of its children's final counts has arrived, so a list job is done only
// once every one of its images has a finished (or deleted) child in view.
import type { KubeObject } from '../types';

export interface PullStatus {
  desired?: number;
  succeeded?: number;
  failed?: number;
  completed?: number;
  failedNodes?: string[];
  completionTime?: string;
  failedImageStatuses?: Array<{ imagePullJob?: string; name?: string; message?: string }>;
}

/** One row of the report: an ImagePullJob (or the images of a list job with no child in view yet). */
export interface PullJobReport {
  /** "imagepulljob/x", or "pull IMAGE" for the client engine. */
  name: string;
  images: string[];
  desired: number;
  succeeded: number;
  failed: number;
  failedNodes: string[];
  done: boolean;
}

export function pullStatusOf(obj: KubeObject | undefined): PullStatus {
  return (obj?.status ?? {}) as PullStatus;
}

export function pullImagesOf(obj: KubeObject): string[] {
  const spec = (obj.spec ?? {}) as { image?: string; images?: string[] };
  return spec.images ?? (spec.image ? [spec.image] : []);
}

/**
 * An ImagePullJob's row. Done as Kruise's ImageListPullJob controller counts a child completed
 * (imagelistpulljob_controller.go calculateStatus: Desired == Failed + Succeeded), or once it has
 * a completionTime.
 */
export function pullJobReport(label: string, obj: KubeObject | undefined, images: string[]): PullJobReport {
  const st = pullStatusOf(obj);
  const desired = st.desired ?? 0;
  const succeeded = st.succeeded ?? 0;
  const failed = st.failed ?? 0;
  const done = Boolean(st.completionTime) || (desired > 0 && succeeded + failed >= desired);
  return { name: label, images, desired, succeeded, failed, failedNodes: [...(st.failedNodes ?? [])].sort(), done };
}

/** What the watches hold: each kind's objects by name, live or last seen before deletion (gone). */
export interface PullView {
  pullJobs: ReadonlyMap<string, KubeObject>;
  goneJobs: ReadonlySet<string>;
  listJobs: ReadonlyMap<string, KubeObject>;
}

/**
 * The rows for the jobs we created (as created: name, uid, images), and whether all are done. A job
 * removed by its TTL right after finishing (--ttl=0s) is judged from its last state in view.
 */
export function pullProgress(created: readonly KubeObject[], view: PullView): { reports: PullJobReport[]; done: boolean } {
  const reports: PullJobReport[] = [];
  let done = true;
  for (const job of created) {
    const name = job.metadata.name ?? '';
    if (job.kind !== 'ImageListPullJob') {
      const r = pullJobReport(`imagepulljob/${name}`, view.pullJobs.get(name), pullImagesOf(job));
      reports.push(r);
      if (!r.done) done = false;
      continue;
    }
    const st = pullStatusOf(view.listJobs.get(name));
    const children = [...view.pullJobs.values()].filter((c) => c.metadata.ownerReferences?.some((o) => o.uid === job.metadata.uid));
    const rows = children.map((c) => pullJobReport(`imagepulljob/${c.metadata.name}`, c, pullImagesOf(c)));
    reports.push(...rows);
    const missing = pullImagesOf(job).filter((img) => !children.some((c) => pullImagesOf(c).includes(img)));
    if (missing.length > 0) reports.push(pullJobReport(`imagelistpulljob/${name}`, undefined, missing));
    const listDone = Boolean(st.completionTime) || ((st.desired ?? 0) > 0 && (st.completed ?? 0) >= (st.desired ?? 0));
    // The list job counts its children's final states: ours must have arrived too (a child deleted
    // before finishing, with its list job, has no more to come).
    const childrenFinal = missing.length === 0 && children.every((c, i) => rows[i]!.done || view.goneJobs.has(c.metadata.name ?? ''));
    if (!listDone || !childrenFinal) done = false;
  }
  return { reports, done };
}

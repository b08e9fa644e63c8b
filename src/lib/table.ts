// The meta.k8s.io/v1 Table a server prints for a list (kubectl get's columns): shared by the cluster layer
// (src/kube, which asks for it) and the printers (which lay it out), so neither imports the other.

/** A column of a server-side Table (meta.k8s.io/v1), as the server printed it. */
export interface TableColumn {
  name: string;
  type: string;
  format?: string;
  /** 0: shown by default; higher: only with -o wide. */
  priority?: number;
}

export interface TableRow {
  /** One value per column; null when the object has no value there (a CRD column's missing path). */
  cells: unknown[];
  /** PartialObjectMetadata (the server's default includeObject=Metadata). */
  object?: { metadata?: { name?: string; namespace?: string } };
}

/** Every page of a list asked for as a Table, joined. */
export interface KubeTable {
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

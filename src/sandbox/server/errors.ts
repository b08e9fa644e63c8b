// Errors of the sandbox API server as kube `Status` objects. Controllers' admission hooks
// throw these too, so a rejection reaches the client exactly like a real webhook denial.

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
  uid?: string;
}

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

/** "clonesets.apps.kruise.io" / "pods": how kube names a resource in messages. */
export function qualifiedResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** "CloneSet.apps.kruise.io" / "Pod": how kube names a kind in 422 messages. */
export function qualifiedKind(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): KubeStatus {
    const status: KubeStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    // metav1.Status omits an empty reason (StatusReasonUnknown), as for errors kube passes on from etcd.
    if (!this.reason) delete (status as Partial<KubeStatus>).reason;
    if (this.details) status.details = this.details;
    return status;
  }

  static notFound(group: string, resource: string, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, { name, group, kind: resource });
  }

  static alreadyExists(group: string, resource: string, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists', `${qualifiedResource(group, resource)} "${name}" already exists`, { name, group, kind: resource });
  }

  static conflict(group: string, resource: string, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`, { name, group, kind: resource });
  }

  /** 422 with one cause per field: `Kind.group "name" is invalid: [field: Reason: detail, ...]`. */
  static invalid(group: string, kind: string, name: string, causes: StatusCause[]): ApiError {
    const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
    const list = parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
    return new ApiError(422, 'Invalid', `${qualifiedKind(group, kind)} "${name}" is invalid: ${list}`, { name, group, kind, causes });
  }

  static forbidden(group: string, resource: string, name: string | undefined, why: string): ApiError {
    const subject = name ? `${qualifiedResource(group, resource)} "${name}"` : qualifiedResource(group, resource);
    return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, { name, group, kind: resource });
  }

  /**
   * A validating webhook's denial as kube-apiserver returns it (webhookerrors.ToStatusErr): the webhook's
   * code (422 for admission.Errored(http.StatusUnprocessableEntity, ...)), no reason, its message prefixed
   * `admission webhook "NAME" denied the request: `.
   */
  static webhookDenied(code: number, message: string): ApiError {
    return new ApiError(code, '', message);
  }

  static badRequest(message: string): ApiError {
    return new ApiError(400, 'BadRequest', message);
  }

  static methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
    return new ApiError(405, 'MethodNotAllowed', message);
  }

  static unsupportedMediaType(contentType: string): ApiError {
    return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`, { kind: contentType });
  }

  static gone(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  }

  static unauthorized(): ApiError {
    return new ApiError(401, 'Unauthorized', 'Unauthorized');
  }

  static internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
  }

  static tooManyRequests(retryAfterSeconds?: number): ApiError {
    return new ApiError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', retryAfterSeconds ? { retryAfterSeconds } : undefined);
  }

  /** Any status code, with the reason kube uses for it. */
  static fromCode(code: number, retryAfterSeconds?: number): ApiError {
    if (code === 429) return ApiError.tooManyRequests(retryAfterSeconds);
    const reasons: Record<number, [string, string]> = {
      500: ['InternalError', 'Internal error occurred: injected fault'],
      502: ['BadGateway', 'bad gateway (injected fault)'],
      503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
      504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
      409: ['Conflict', 'Operation cannot be fulfilled: injected conflict'],
      410: ['Expired', 'the resource version is too old (injected fault)'],
    };
    const [reason, message] = reasons[code] ?? ['InternalError', `injected fault ${code}`];
    return new ApiError(code, reason, message, retryAfterSeconds ? { retryAfterSeconds } : undefined);
  }
}

// RFC 6902 JSON Patch as the API server answers it (the patch itself: src/lib/json-patch.ts).
// A malformed patch is a 400 naming the problem; a patch that does not apply to the stored object
// (a failed `test`, a missing path) is a bare 422 Invalid. The apiserver drops json-patch's own
// explanation there (NewGenericServerResponse(422, ..., isUnexpectedResponse=false): generic message,
// no causes), and so does the sandbox, so clients are tested against the answer they will really get.
import { jsonPatch, JsonPatchError } from '../../../lib/json-patch';
import { ApiError } from '../errors';

/** The apiserver's whole answer to a JSON patch that does not apply. */
const REJECTED = 'the server rejected our request due to an error in our request';

/** Applies `patch` (an array of operations) to a copy of `doc`. */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  try {
    return jsonPatch(doc, patch);
  } catch (err) {
    if (!(err instanceof JsonPatchError)) throw err;
    switch (err.fault) {
      case 'not-a-list':
        throw ApiError.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
      case 'bad-operation':
        throw ApiError.badRequest(`${REJECTED}: invalid JSON patch operation`);
      case 'bad-pointer':
        throw ApiError.badRequest(`${REJECTED}: invalid JSON pointer "${err.subject}"`);
      case 'unknown-op':
        throw ApiError.badRequest(`${REJECTED}: Unexpected kind: ${err.subject}`);
      case 'not-applicable':
        throw new ApiError(422, 'Invalid', REJECTED, {});
    }
  }
}

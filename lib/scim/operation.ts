import type { OperationDoc } from '../http/operation-doc';

/** docs/openapi.json's entry of a SCIM route (docs/api.md 13.3); its errors are SCIM's (RFC 7644 3.12), described there. */
export function scimOperation(summary: string, body: string | undefined, status = 200): OperationDoc {
  return {
    section: '13.3',
    summary,
    tag: 'admin',
    caller: 'scimToken',
    answers: [{ status, description: 'RFC 7644, application/scim+json.', ...(body ? { body } : {}) }],
    // SCIM's errors are not the envelope: docs/api.md 13.3 lists them.
    failures: [],
  };
}

/** docs/openapi.json's entry of a SCIM discovery document (RFC 7644 4). */
export function scimDocumentOperation(summary: string): OperationDoc {
  return {
    section: '13.3',
    summary,
    tag: 'discovery',
    caller: 'none',
    answers: [{ status: 200, description: 'RFC 7644 4.', body: 'ScimDocument' }],
    failures: [],
  };
}

/**
 * What a request made or proved, for the audit log (apps/api/src/modules/audit): the ids it minted (a create's
 * resource is the first id of its kind) and the organization a credential it presented named (routes without a
 * principal: login, invitation and attendee tokens). One observer per process, set by the audit module; it reads
 * its own request context and ignores calls outside a request.
 */
export interface RequestObserver {
  idMinted(prefix: string, id: string): void;
  scopeVerified(organizationId: string, livemode: boolean): void;
}

let current: RequestObserver | undefined;

export function setRequestObserver(observer: RequestObserver): void {
  current = observer;
}

export function requestObserver(): RequestObserver | undefined {
  return current;
}

/**
 * The HTTP request of one delivery, as Gitea builds it: for gitea and gogs hooks the body by
 * content type (JSON as stored, or `payload=` form-encoded), for the chat types their own message
 * (`./formats`: JSON, matrix a PUT to a transaction URL); and the headers receivers read: the
 * delivery's UUID (the same on every retry, so receivers can deduplicate), the event and its type,
 * the installation target, and HMAC signatures of the JSON bytes (SHA-256 hex for Gitea and Gogs,
 * `sha1=`/`sha256=` for GitHub's).
 */
import crypto from 'node:crypto';
import { HookContentType } from '../../models/webhook.model';
import type { HookEventType } from './events';
import { formatRequest } from './formats';

/** What a request is built from. */
export interface DeliveryInput {
  /** The hook's type (gitea, gogs, slack, ...) and its type-specific settings (JSON). */
  type: string; meta: string;
  url: string; contentType: HookContentType; secret: string; authorization: string; uuid: string; eventType: HookEventType;
  /** The stored payload (JSON text). */
  payload: string;
  /** system, repository, organization, user or default (Gitea's installation target type). */
  target: string;
}

/** A request ready to send. */
export interface DeliveryRequest { method: 'POST' | 'PUT'; url: string; headers: Record<string, string>; body: string }

/** The event name Gitea puts in X-Gitea-Event for an event type (several types share one). */
export function eventHeader(type: HookEventType): string {
  if (type.startsWith('issue_') && type !== 'issue_comment') return 'issues';
  if (type === 'pull_request_comment') return 'issue_comment';
  if (type === 'pull_request_review_approved') return 'pull_request_approved';
  if (type === 'pull_request_review_rejected') return 'pull_request_rejected';
  if (type === 'pull_request_review_comment') return 'pull_request_comment';
  if (type.startsWith('pull_request_')) return 'pull_request';
  return type;
}

const hmac = (alg: 'sha1' | 'sha256', key: string, data: string) => (key ? crypto.createHmac(alg, key).update(data).digest('hex') : '');

/** Build the request of one delivery; throws when a chat type cannot make its message (a failure that no retry mends). */
export function buildRequest(d: DeliveryInput): DeliveryRequest {
  const chat = formatRequest(d.type, d.meta, d.eventType, d.payload);
  const form = !chat && d.contentType === HookContentType.Form;
  // why: as Gitea, the signature is of the JSON sent: the stored payload (even when the body is its form encoding), or the chat message.
  const signed = chat ? chat.body : d.payload;
  const event = eventHeader(d.eventType);
  const sha256 = hmac('sha256', d.secret, signed);
  const headers: Record<string, string> = {
    'Content-Type': chat ? chat.contentType : form ? 'application/x-www-form-urlencoded' : 'application/json',
    'X-Gitea-Delivery': d.uuid, 'X-Gogs-Delivery': d.uuid, 'X-GitHub-Delivery': d.uuid,
    'X-Gitea-Event': event, 'X-Gogs-Event': event, 'X-GitHub-Event': event,
    'X-Gitea-Event-Type': d.eventType, 'X-Gogs-Event-Type': d.eventType, 'X-GitHub-Event-Type': d.eventType,
    'X-Gitea-Signature': sha256, 'X-Gogs-Signature': sha256,
    'X-Hub-Signature': `sha1=${hmac('sha1', d.secret, signed)}`, 'X-Hub-Signature-256': `sha256=${sha256}`,
    'X-Gitea-Hook-Installation-Target-Type': d.target, 'X-GitHub-Hook-Installation-Target-Type': d.target,
  };
  if (d.authorization) headers.Authorization = d.authorization;
  if (chat) return { method: chat.method, url: d.url + chat.urlSuffix, headers, body: chat.body };
  return { method: 'POST', url: d.url, headers, body: form ? `payload=${encodeURIComponent(d.payload)}` : d.payload };
}

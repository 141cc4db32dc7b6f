/**
 * The words of every mail, as HTML in one small frame (the plain-text part is made from it).
 * Subjects and sentences follow Gitea's English locale where Gitea has the mail.
 */
import { settings } from '../../config';
import { escapeHtml as esc } from '../../markup/sanitize';
import type { MailContent } from './message';

/** A link whose text is its address, or the given text. */
export function link(url: string, text = url): string {
  return `<a href="${esc(url)}">${esc(text)}</a>`;
}

/** The frame every mail body sits in; `body` is trusted HTML, `footer` a line under a rule. */
export function frame(title: string, body: string, footer = ''): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head>`
    + '<body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;line-height:1.5;color:#24292f">'
    + `${body}${footer ? `<hr style="border:0;border-top:1px solid #d0d7de"><p style="color:#57606a;font-size:12px">${footer}</p>` : ''}</body></html>`;
}

const appName = () => settings().appName;
const root = () => settings().server.rootUrl;

/** The account activation mail. */
export function activateMail(name: string, code: string, lifetime: string): MailContent {
  const url = `${root()}user/activate?code=${code}`;
  return {
    subject: 'Please activate your account',
    html: frame('Please activate your account', `<p>Hi <b>${esc(name)}</b>, thanks for registering at ${esc(appName())}!</p>`
      + `<p>Please click the following link to activate your account within <b>${esc(lifetime)}</b>:</p><p>${link(url)}</p>`
      + '<p>If you cannot click it, copy and paste it into your browser.</p>', `© ${esc(appName())}`),
  };
}

/** The confirmation mail of an added address. */
export function activateEmailMail(name: string, email: string, code: string, lifetime: string): MailContent {
  const url = `${root()}user/activate_email?code=${code}&email=${encodeURIComponent(email)}`;
  return {
    subject: 'Verify your email address',
    html: frame('Verify your email address', `<p>Hi <b>${esc(name)}</b>,</p>`
      + `<p>Please click the following link to verify <b>${esc(email)}</b> for your ${esc(appName())} account within <b>${esc(lifetime)}</b>:</p>`
      + `<p>${link(url)}</p><p>If you did not add this address, you can ignore this mail.</p>`, `© ${esc(appName())}`),
  };
}

/** The password reset mail. */
export function resetPasswordMail(name: string, code: string, lifetime: string): MailContent {
  const url = `${root()}user/recover_account?code=${code}`;
  return {
    subject: 'Recover your account',
    html: frame('Recover your account', `<p>Hi <b>${esc(name)}</b>,</p>`
      + `<p>Please click the following link to recover your account within <b>${esc(lifetime)}</b>:</p><p>${link(url)}</p>`
      + '<p>If you did not ask for this, you can ignore this mail: your password stays as it is.</p>', `© ${esc(appName())}`),
  };
}

/** The notice of a security change to the account (a new password, a second factor removed). */
export function securityNoticeMail(name: string, what: string): MailContent {
  const url = `${root()}user/forgot_password`;
  return {
    subject: `Security notice: ${what}`,
    html: frame(`Security notice: ${what}`, `<p>Hi <b>${esc(name)}</b>,</p>`
      + `<p>This is to let you know: <b>${esc(what)}</b> on your ${esc(appName())} account, at ${esc(new Date().toUTCString())}.</p>`
      + `<p>If this was you, there is nothing to do. If it was not, reset your password at once: ${link(url)}</p>`, `© ${esc(appName())}`),
  };
}

/** The welcome mail of an account an administrator made (Gitea's register_notify). */
export function registerNotifyMail(name: string): MailContent {
  return {
    subject: `Welcome to ${appName()}`,
    html: frame(`Welcome to ${appName()}`, `<p>Hi <b>${esc(name)}</b>, this is your registration confirmation for ${esc(appName())}.</p>`
      + `<p>You can now sign in as <b>${esc(name)}</b>: ${link(`${root()}user/login`)}</p>`
      + `<p>If this account was made for you, please ${link(`${root()}user/forgot_password`, 'set your password')} first.</p>`, `© ${esc(appName())}`),
  };
}

/** An administrator's announcement (`forge admin sendmail`): the content is used as it is, as in Gitea. */
export function announcementMail(subject: string, content: string): MailContent {
  return { subject, html: frame(subject, content) };
}

/** The test mail of the site administration. */
export function testMail(): MailContent {
  return { subject: `${appName()} Test Email!`, html: frame('Test mail', `<p>${esc(appName())} Test Email!</p><p>Sent from ${link(root())}.</p>`) };
}

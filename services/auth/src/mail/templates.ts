// The mails auth sends, as pure functions: short, plain, branded "Parley", each with a text part
// (what most clients and every spam filter read) and a simple HTML part with every value escaped.

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const SIGNATURE = '— The Parley team';

/** Paragraphs of text: joined with blank lines for the text part, as <p>s (escaped) for the HTML part. */
function mail(subject: string, paragraphs: (string | { link: string; label: string })[]): MailContent {
  const text = [...paragraphs.map((p) => (typeof p === 'string' ? p : `${p.label}:\n${p.link}`)), SIGNATURE].join('\n\n');
  const body = paragraphs
    .map((p) =>
      typeof p === 'string'
        ? `<p>${escapeHtml(p)}</p>`
        : `<p><a href="${escapeHtml(p.link)}" style="display:inline-block;padding:10px 16px;background:#4f46e5;color:#ffffff;border-radius:6px;text-decoration:none">${escapeHtml(p.label)}</a></p>\n<p style="font-size:13px;color:#6b7280">Or paste this address into your browser: ${escapeHtml(p.link)}</p>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:system-ui,-apple-system,sans-serif;color:#111827;line-height:1.5;max-width:560px;margin:0 auto;padding:24px">
<p style="font-size:20px;font-weight:600;margin:0 0 16px">Parley</p>
${body}
<p style="color:#6b7280">${escapeHtml(SIGNATURE)}</p>
</body></html>`;
  return { subject, text, html };
}

export function resetLink(publicUrl: string, token: string): string {
  return `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
}

export function passwordResetMail(input: { publicUrl: string; token: string; ttlSeconds: number }): MailContent {
  return mail('Reset your Parley password', [
    'Someone (hopefully you) asked to reset the password of your Parley account.',
    { label: 'Choose a new password', link: resetLink(input.publicUrl, input.token) },
    `The link works once and expires in ${duration(input.ttlSeconds)}.`,
    'If you did not ask for this, you can ignore this mail: your password stays as it is.',
  ]);
}

export function passwordChangedMail(input: { publicUrl: string }): MailContent {
  return mail('Your Parley password was changed', [
    'The password of your Parley account was just changed, and your other devices were signed out.',
    `If this was not you, reset your password at once: ${input.publicUrl}/forgot-password`,
  ]);
}

export function emailChangedMail(input: { newEmail: string }): MailContent {
  return mail('Your Parley email address was changed', [
    `Your Parley account now uses ${input.newEmail} instead of this address, which will no longer receive mail from us.`,
    'If this was not you, please contact Parley support at once: someone else may have access to your account.',
  ]);
}

export function twoFactorEnabledMail(input: { publicUrl: string }): MailContent {
  return mail('Two-factor sign-in is on for your Parley account', [
    'Two-factor sign-in was just turned on for your Parley account: signing in now also asks for a code from your authenticator app.',
    'Keep your recovery codes somewhere safe; each works once if you lose your phone.',
    `If this was not you, reset your password at once: ${input.publicUrl}/forgot-password`,
  ]);
}

export function twoFactorDisabledMail(input: { publicUrl: string }): MailContent {
  return mail('Two-factor sign-in is off for your Parley account', [
    'Two-factor sign-in was just turned off for your Parley account: signing in now asks for your password only.',
    `If this was not you, reset your password at once and turn two-factor sign-in on again: ${input.publicUrl}/forgot-password`,
  ]);
}

export function recoveryCodesRegeneratedMail(input: { publicUrl: string }): MailContent {
  return mail('New recovery codes for your Parley account', [
    'New recovery codes were just made for the two-factor sign-in of your Parley account; the earlier ones no longer work.',
    `If this was not you, reset your password at once: ${input.publicUrl}/forgot-password`,
  ]);
}

export function newSignInMail(input: { publicUrl: string; clientIp: string; at: Date }): MailContent {
  return mail('New sign-in to your Parley account', [
    `Your Parley account was signed in to from a new device (address ${input.clientIp || 'unknown'}) at ${input.at.toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
    `If this was you, there is nothing to do. If not, reset your password at once and sign out your other devices: ${input.publicUrl}/forgot-password`,
  ]);
}

export function accountDeletedMail(): MailContent {
  return mail('Your Parley account was deleted', [
    'Your Parley account has been deleted. Your chatbots, their knowledge and their conversations are being removed, and any subscription is cancelled.',
    'Thank you for having used Parley. You are welcome back any time.',
  ]);
}

export function invitationLink(publicUrl: string, token: string): string {
  return `${publicUrl}/invitations/${encodeURIComponent(token)}`;
}

export function invitationMail(input: {
  publicUrl: string;
  token: string;
  workspaceName: string;
  invitedBy: string;
  role: string;
  ttlSeconds: number;
}): MailContent {
  return mail(`Join ${input.workspaceName} on Parley`, [
    `${input.invitedBy} invited you to join the workspace ${input.workspaceName} on Parley as ${/^[aeiou]/.test(input.role) ? 'an' : 'a'} ${input.role}.`,
    { label: 'Accept the invitation', link: invitationLink(input.publicUrl, input.token) },
    `Sign in or create an account with this email address to accept it. The link works once and expires in ${duration(input.ttlSeconds)}.`,
    'If you did not expect this invitation, you can ignore this mail.',
  ]);
}

function duration(seconds: number): string {
  if (seconds % 86400 === 0) return seconds === 86400 ? '1 day' : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  const minutes = Math.round(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export function webhookEndpointDisabledMail(input: {
  publicUrl: string;
  workspaceName: string;
  url: string;
  lastError: string;
}): MailContent {
  return mail('A webhook endpoint of your Parley workspace was disabled', [
    `Deliveries to the webhook endpoint ${input.url} of the workspace "${input.workspaceName}" have failed for a day (last failure: ${input.lastError}), so Parley has disabled it and sends it nothing more.`,
    'Once the endpoint answers again, enable it on the Developers page; you can redeliver the events it missed from its delivery log.',
    { label: 'Open the Developers page', link: `${input.publicUrl}/developers` },
  ]);
}

/** The conversation in the Inbox, in its workspace (the page switches to it for a member of several). */
export function inboxConversationLink(publicUrl: string, conversationId: string, workspaceId: string): string {
  return `${publicUrl}/inbox/${encodeURIComponent(conversationId)}?workspace=${encodeURIComponent(workspaceId)}`;
}

/** What a visitor wrote, as a mail quotes it: on one line and at most 200 characters. */
const quoted = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
};

export function handoffRequestedMail(input: {
  publicUrl: string;
  workspaceName: string;
  workspaceId: string;
  conversationId: string;
  visitorName: string;
  lastMessage: string;
}): MailContent {
  const who = quoted(input.visitorName) || 'A visitor';
  const last = quoted(input.lastMessage);
  return mail(`A visitor is waiting for a person in ${input.workspaceName}`, [
    `${who} asked to talk to a person in the workspace "${input.workspaceName}" and is waiting in the Inbox.`,
    ...(last ? [`Their latest message: “${last}”`] : []),
    { label: 'Open the conversation', link: inboxConversationLink(input.publicUrl, input.conversationId, input.workspaceId) },
    'You get this mail because "Email me when a visitor is waiting" is on for you in this workspace; switch it off on the Inbox page.',
  ]);
}

/** The Tests section of a chatbot's settings, in its workspace. */
export function testsSectionLink(publicUrl: string, chatbotId: string, workspaceId: string): string {
  return `${publicUrl}/chatbots/${encodeURIComponent(chatbotId)}?workspace=${encodeURIComponent(workspaceId)}#settings-tests`;
}

export function testRunRegressedMail(input: {
  publicUrl: string;
  workspaceName: string;
  workspaceId: string;
  chatbotId: string;
  chatbotName: string;
  questions: string[];
  regressions: number;
}): MailContent {
  const bot = quoted(input.chatbotName) || 'Your chatbot';
  const cases = input.regressions === 1 ? '1 test case' : `${input.regressions} test cases`;
  const more = input.regressions - input.questions.length;
  return mail(`${bot}: ${cases} newly failing`, [
    `The latest test run of ${bot} in the workspace "${input.workspaceName}" has ${cases} that passed in the run before and fail now:`,
    ...input.questions.map((q) => `• ${quoted(q)}`),
    ...(more > 0 ? [`… and ${more} more.`] : []),
    { label: 'Open the Tests section', link: testsSectionLink(input.publicUrl, input.chatbotId, input.workspaceId) },
    'You get this mail because "Email me when a run has regressions" is on in this chatbot\'s Tests section.',
  ]);
}

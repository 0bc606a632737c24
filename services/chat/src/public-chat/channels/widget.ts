// The widget on an owner's site: the embed page in its frame, a browser on another site, so it
// keeps every rule of the public page; the site rule tells the two apart by where the request came
// from (visitor-site.ts), and the host page may say who its visitor is (Parley.identify).
import type { Channel } from './channel.ts';
import { publicPage } from './public-page.ts';

export const widget: Channel = { ...publicPage, name: 'widget' };

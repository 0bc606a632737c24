import { Badge } from './ui/badge';

/**
 * How the product names where a visitor wrote from (docs/product.md, Channels): "web" is the chat
 * page, the widget and the developer API; any other is a messaging channel. A channel this page does
 * not know yet is shown by its id, capitalised.
 */
const CHANNEL_LABELS: Record<string, string> = {
  web: 'Web',
  telegram: 'Telegram',
  slack: 'Slack',
  whatsapp: 'WhatsApp',
  messenger: 'Messenger',
  instagram: 'Instagram',
  email: 'Email',
  sms: 'SMS',
};

export function channelLabel(channel: string): string {
  return CHANNEL_LABELS[channel] ?? (channel ? channel[0]!.toUpperCase() + channel.slice(1) : CHANNEL_LABELS.web!);
}

/** The conversation's channel as a small label: brand for a messaging channel, neutral for the web. */
export function ChannelBadge({ channel }: { channel: string }) {
  return <Badge tone={channel && channel !== 'web' ? 'brand' : 'neutral'}>{channelLabel(channel)}</Badge>;
}

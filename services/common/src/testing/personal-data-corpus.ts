// The redaction test data: 200 visitors' messages each carrying personal data (international phone
// formats, card numbers with spaces and dashes, IBANs of several countries, emails), and 240 ordinary
// sentences with dates, prices, order numbers, times and quantities that carry none. Generated from
// a fixed seed, so every run reads the same texts; the chat service's tests and the benchmark use them too.

/** A small deterministic generator (mulberry32), so the corpus is the same on every run. */
function seeded(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(42);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');

/** A card number of `length` digits starting with `prefix`, its last digit Luhn's check digit. */
function luhnCard(prefix: string, length: number): string {
  const body = prefix + digits(length - prefix.length - 1);
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let n = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
    sum += n;
  }
  return body + String((10 - (sum % 10)) % 10);
}

const groupCard = (card: string, groups: number[], sep: string) => {
  const parts: string[] = [];
  let at = 0;
  for (const g of groups) {
    parts.push(card.slice(at, at + g));
    at += g;
  }
  return parts.join(sep);
};

function cardNumber(): string {
  const kind = pick(['visa', 'mastercard', 'amex', 'discover']);
  const sep = pick([' ', '-', '']);
  if (kind === 'amex') return groupCard(luhnCard(pick(['34', '37']), 15), [4, 6, 5], sep);
  const prefix = kind === 'visa' ? '4' : kind === 'mastercard' ? pick(['51', '52', '55', '2221']) : '6011';
  return groupCard(luhnCard(prefix, 16), [4, 4, 4, 4], sep);
}

/** An IBAN of `country` with a bank part of `length - 4` characters, its check digits computed (ISO 13616). */
function iban(country: string, bban: string): string {
  const moved = bban + country + '00';
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? code - 55 : code - 48;
    rest = value > 9 ? (rest * 100 + value) % 97 : (rest * 10 + value) % 97;
  }
  const check = String(98 - rest).padStart(2, '0');
  return country + check + bban;
}

const BBANS: [string, () => string][] = [
  ['DE', () => digits(18)],
  ['GB', () => 'NWBK' + digits(14)],
  ['FR', () => digits(23)],
  ['ES', () => digits(20)],
  ['IT', () => 'X' + digits(22)],
  ['NL', () => 'ABNA' + digits(10)],
  ['BE', () => digits(12)],
  ['CH', () => digits(17)],
  ['PL', () => digits(24)],
  ['NO', () => digits(11)],
];

function ibanNumber(): string {
  const [country, bban] = pick(BBANS);
  const compact = iban(country, bban());
  return random() < 0.5 ? compact : compact.replace(/(.{4})/g, '$1 ').trim();
}

function phoneNumber(): string {
  return pick([
    () => `+44 20 ${digits(4)} ${digits(4)}`,
    () => `+44 (0)20 ${digits(4)} ${digits(4)}`,
    () => `+1 ${pick(['415', '212', '646'])}-555-${digits(4)}`,
    () => `(${pick(['415', '312', '718'])}) 555-${digits(4)}`,
    () => `+33 6 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`,
    () => `+49 30 ${digits(8)}`,
    () => `+49 (0)171 ${digits(7)}`,
    () => `0044 7${digits(3)} ${digits(6)}`,
    () => `+81 3-${digits(4)}-${digits(4)}`,
    () => `+91 98${digits(3)} ${digits(5)}`,
    () => `+86 138 ${digits(4)} ${digits(4)}`,
    () => `+34 6${digits(2)} ${digits(3)} ${digits(3)}`,
    () => `+61 4${digits(2)} ${digits(3)} ${digits(3)}`,
    () => `+55 11 9${digits(4)}-${digits(4)}`,
    () => `07${digits(3)} ${digits(6)}`,
    () => `415.555.${digits(4)}`,
    () => `+${digits(2).replace(/^0/, '3')}${digits(9)}`,
  ])();
}

function email(): string {
  const name = pick(['jo', 'anna.smith', 'li.wei', 'zoë', 'm.müller', 'ops+shop', 'k_99', 'Pat.O-Neil']);
  const domain = pick(['example.com', 'mail.example.co.uk', 'exemple.fr', 'beispiel.de', 'test.io', 'corp.example.org']);
  return `${name}@${domain}`;
}

const FRAMES = [
  (d: string) => `Hi, my details: ${d}. Can you help?`,
  (d: string) => `${d}`,
  (d: string) => `Please reach me at ${d} tomorrow after 10:30`,
  (d: string) => `Order 123456 was paid with ${d}, why was I charged twice?`,
  (d: string) => `(${d})`,
  (d: string) => `Is "${d}" what you have on file?`,
  (d: string) => `bonjour, c'est ${d} — merci !`,
  (d: string) => `My refund should go to ${d}; the amount is $49.99.`,
];

export interface Sample {
  text: string;
  /** The details the text carries, as typed: none of them may reach the model. */
  details: string[];
}

/** 200 messages, each with one to three details of the four kinds. */
export const PERSONAL_DATA_SAMPLES: Sample[] = Array.from({ length: 200 }, (_, i) => {
  const makers = [email, phoneNumber, cardNumber, ibanNumber];
  const details = [makers[i % 4]!()];
  if (i % 3 === 0) details.push(pick(makers)());
  if (i % 7 === 0) details.push(pick(makers)());
  const text = details.map((d) => pick(FRAMES)(d)).join(' Also: ');
  return { text, details };
});

/** The digits (or letters and digits) a detail is made of, so a detail reformatted on the way still counts as leaked. */
export const compactDetail = (detail: string) => (detail.includes('@') ? detail.toLowerCase() : detail.replace(/[^0-9A-Za-z]/g, ''));

const ORDINARY_TEMPLATES = [
  () => `Can I have it delivered on 2026-${pick(['01', '06', '12'])}-${pick(['01', '15', '28'])}?`,
  () => `Is ${pick(['01', '15', '28'])}.${pick(['03', '11'])}.2026 a holiday?`,
  () => `Are you open on ${pick(['12/01/2026', '3/7/2025', '31/12/2026'])} at ${pick(['9:00', '10:30', '17:45'])}?`,
  () => `Does it cost $${digits(2)}.${digits(2)} or $1,${digits(3)}.99?`,
  () => `Is it €${digits(2)},50 a month?`,
  () => `Where is my order ${digits(6).replace(/^0/, '1')}?`,
  () => `Order #${digits(5).replace(/^0/, '2')} has not arrived yet`,
  () => `I need ${pick(['3', '12', '40'])} of them by ${pick(['Friday', 'next week', 'June'])}`,
  () => `Do you open ${pick(['9-17', '8-20', '10-18'])} on weekdays?`,
  () => `What changed between version ${digits(1)}.${digits(1)}.${digits(1)} and ${digits(1)}.${digits(2)}?`,
  () => `The meeting is at ${pick(['14:00', '09:15', '18:30'])} on ${pick(['Monday', 'the 3rd', 'May 5'])}`,
  () => `My invoice INV-${digits(4)}-${digits(3)} shows ${digits(2)} items`,
  () => `Is the ${pick(['5G', '4G', 'fibre'])} plan available in ${pick(['2026', '2027'])}?`,
  () => `The parcel weighs ${digits(1)}.${digits(1)} kg and measures ${digits(2)}x${digits(2)} cm`,
  () => `Can I pay ${digits(3)} in ${pick(['3', '6', '12'])} instalments?`,
  () => `Room ${digits(3)}, floor ${digits(1)}, building B`,
  () => `I was born in 19${digits(2)} and moved here in 20${digits(2)}`,
  () => `The temperature was ${digits(2)}°C at ${pick(['noon', '6 pm', '07:00'])}`,
  () => `Ticket ${digits(2)}-${digits(3)} is still open since ${pick(['Jan 3', '2026-02-14'])}`,
  () => `How many calories are in ${digits(3)} g of rice?`,
  () => `We are ${digits(2)} people arriving at ${pick(['8pm', '20:00'])} on ${pick(['Dec 24', '24.12.'])}`,
  () => `Our score was ${digits(2)}:${digits(2)} in the ${digits(2)}th minute`,
  () => `Flight LH${digits(3)} lands at ${pick(['13:05', '22:40'])}, gate A${digits(2)}`,
  () => `Do you ship to postcode ${digits(5)}?`,
];

/** 240 ordinary sentences: no detail in any of them, however many numbers they hold. */
export const ORDINARY_SENTENCES: string[] = Array.from({ length: 240 }, (_, i) => ORDINARY_TEMPLATES[i % ORDINARY_TEMPLATES.length]!());

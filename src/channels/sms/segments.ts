// How an SMS text travels and what it costs: GSM-7 (3GPP TS 23.038's default alphabet, 160
// septets in one message, 153 per part of a longer one; the extension table's characters take an
// escape and count 2) when every character is in it, else UCS-2 (70 UTF-16 units, 67 per part). A
// part never splits an escape pair or a surrogate pair, so the count is made by filling parts the
// way a carrier does, not by dividing.

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '^{}\\[~]|€\f';

const basic = new Set(GSM_BASIC);
const extension = new Set(GSM_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export type SmsSegments = { encoding: SmsEncoding; segments: number; characters: number };

const LIMITS = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
} as const;

/** The size of each character in the encoding's units (septets, or UTF-16 code units). */
function unitsOf(text: string): { encoding: SmsEncoding; units: number[] } {
  const characters = [...text];
  if (characters.every((character) => basic.has(character) || extension.has(character))) {
    return { encoding: 'GSM-7', units: characters.map((character) => (extension.has(character) ? 2 : 1)) };
  }
  return { encoding: 'UCS-2', units: characters.map((character) => character.length) };
}

/** The encoding a text needs and the number of messages (segments) it is sent as. */
export function smsSegments(text: string): SmsSegments {
  const { encoding, units } = unitsOf(text);
  const total = units.reduce((sum, size) => sum + size, 0);
  const limits = LIMITS[encoding];
  if (total <= limits.single) return { encoding, segments: 1, characters: units.length };
  let segments = 1;
  let used = 0;
  for (const size of units) {
    if (used + size > limits.part) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return { encoding, segments, characters: units.length };
}

import { remove as removeWiderConfusables } from 'confusables';
import unhomoglyph from 'unhomoglyph';

/**
 * Folds a name to the letters a reader sees, so look-alikes compare equal:
 * 1. Unicode's confusable skeleton (UTS #39 §4: NFD, then the `confusables.txt` prototype of each
 *    character, then NFD again), from the `unhomoglyph` package, which carries Unicode's data file; with
 *    NFKD instead of NFD, so compatibility forms (full-width letters, ligatures) fold too. Cyrillic,
 *    Greek, Cherokee, Lisu and most other script homoglyphs become the Latin letters they imitate.
 * 2. What Unicode's table leaves out because it maps a character only to a look-alike of the same case
 *    (small capitals such as `ʟ ᴘ ᴀ`, Armenian `լ`), from the `confusables` package's wider table.
 * 3. Case goes; digit and symbol stand-ins (`$1ipway`) become the letter they imitate; `i`, `l` and `1`
 *    (alike in many fonts) become one letter; every space, punctuation mark and other character goes;
 *    "vv" reads as "w" and "rn" as "m".
 * "S l i p-w@y", "$1ipway", "Ｓｌｉｐｗａｙ", "ꓢꓡꓲꓑꓪꓮꓬ", "ᏚᏞᎥᏢᎳᎪᎽ" and "ꜱʟɪᴘᴡᴀʏ" all fold to the same string as
 * "Slipway". Bidirectional controls, which reorder what is shown, are refused in names by the schemas
 * (`trimmedText`), not folded here.
 */
const STAND_INS: Record<string, string> = {
  '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', $: 's', '!': 'l', '|': 'l', '€': 'e',
};

const skeleton = (s: string) => unhomoglyph(s.normalize('NFKD')).normalize('NFKD');

export function foldLookalike(name: string): string {
  const folded = skeleton(removeWiderConfusables(skeleton(name)).toLowerCase()).toLowerCase();
  let out = '';
  for (const ch of folded) {
    const c = STAND_INS[ch] ?? ch;
    if (c >= 'a' && c <= 'z') out += c === 'i' ? 'l' : c;
  }
  return out.replace(/vv/g, 'w').replace(/rn/g, 'm');
}

/** Whether `name` contains `word` once both are folded (see foldLookalike). */
export const containsLookalike = (name: string, word: string) => foldLookalike(name).includes(foldLookalike(word));

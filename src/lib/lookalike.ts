/**
 * Folds a name to the letters a reader sees, so look-alikes compare equal: compatibility forms and
 * accents go (NFKD), case goes, common Cyrillic and Greek homoglyphs and digit or symbol stand-ins
 * become the Latin letter they imitate, `i`, `l` and `1` (alike in many fonts) become one letter, and
 * every space, punctuation mark and other character goes. "S l i p-w@y", "$1ipway" and "Ｓｌｉｐｗａｙ"
 * all fold to the same string as "Slipway".
 */
const STAND_INS: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', ѕ: 's', і: 'i', ј: 'j', ԁ: 'd', ԛ: 'q', ԝ: 'w',
  // Greek
  α: 'a', β: 'b', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w',
  // Digits and symbols
  '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', $: 's', '!': 'l', '|': 'l', '€': 'e',
};

export function foldLookalike(name: string): string {
  let out = '';
  for (const ch of name.normalize('NFKD').toLowerCase()) {
    const c = STAND_INS[ch] ?? ch;
    if (c >= 'a' && c <= 'z') out += c === 'i' ? 'l' : c;
  }
  // "vv" reads as "w", "rn" as "m".
  return out.replace(/vv/g, 'w').replace(/rn/g, 'm');
}

/** Whether `name` contains `word` once both are folded (see foldLookalike). */
export const containsLookalike = (name: string, word: string) => foldLookalike(name).includes(foldLookalike(word));

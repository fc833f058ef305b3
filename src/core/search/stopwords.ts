/**
 * English words that carry no topic: function words and the phrasing of questions ("what did we say about...").
 * They are kept in the index (a quoted phrase still matches them) but left out of the terms a query is ranked on,
 * because a word in nearly every record matches nearly every record and costs the most to rank.
 */
const WORDS = `a about above after again against all also am an and any are aren't as at be because been before being
below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
either else ever few for from further get gets got had hadn't has hasn't have haven't having he he'd he'll he's her
here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just
let let's like me more most much must mustn't my myself no nor not now of off on once only or other ought our ours
ourselves out over own per same shall shan't she she'd she'll she's should shouldn't so some such than that that's
the their theirs them themselves then there there's these they they'd they'll they're they've this those through to
too under until up upon us very was wasn't we we'd we'll we're we've were weren't what what's when when's where
where's whether which while who who's whom why why's will with won't would wouldn't yet you you'd you'll you're
you've your yours yourself yourselves anything anyone anybody something someone somebody everything everyone
there's thing things stuff tell told say said says know knew think thought wanted want way ok okay yeah yes
aren couldn didn doesn don hadn hasn haven isn mustn shan shouldn wasn weren won wouldn s t d ll m re ve`;

const STOPWORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter(Boolean));

/**
 * Whether a word is a stopword, in any case. Query words are split at apostrophes, so the halves of "didn't" are
 * stopwords too.
 */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word.toLowerCase().replaceAll('\u2019', "'"));
}

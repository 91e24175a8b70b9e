// The words of the studio a clinician may not know, explained on hover (title attributes).

export const GLOSSARY = {
  TPR: "TPR (true-positive rate, sensitivity): the share of the positive rows that the card predicts positive",
  FPR: "FPR (false-positive rate, 1 \u2212 specificity): the share of the negative rows that the card predicts positive",
  error: "error: the share of all rows that the card predicts wrongly",
  cap: "cap: the most the settings allow, e.g. max FPR 20 % keeps every card at FPR \u2264 20 % on the training rows",
  proven: "proven: a mathematical proof (a bound from the solver) that no card under these settings does better; "
    + "without it the card is the best found so far",
  "log-loss": "log-loss: how far the predicted risks are from what happened (lower is better)",
  AUC: "AUC: the chance that a random positive row scores higher than a random negative one",
};

/** The definitions of the glossary's words that occur in `text`, one per line ("" if none). */
export function explain(text) {
  const t = String(text || "");
  const found = Object.entries(GLOSSARY).filter(([word]) => new RegExp(`(^|[^A-Za-z-])${word}([^A-Za-z-]|$)`).test(t));
  return found.map(([, meaning]) => meaning).join("\n");
}

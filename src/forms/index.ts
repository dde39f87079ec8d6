// What other features may use of forms: nothing yet (forms sit above events and feed them; no
// feature reads forms). Routes and pages are in feature.ts, for the composition layer alone.
export {};

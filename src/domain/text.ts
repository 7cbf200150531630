// Characters XML 1.0 cannot carry at all, not even as a reference: most C0 controls, lone surrogates,
// U+FFFE, U+FFFF. Customer text that can reach an e-invoice refuses them (docs/api.md part 14); the
// documents' serializer drops them from what invoices issued before that rule hold.
export const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

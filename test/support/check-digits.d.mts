export declare const mod97: (text: string) => number;
export declare const checkDigits: (body: string, suffix?: string) => string;
export declare const holdsMod97: (code: string) => boolean;
export declare const ibanOf: (country: string, bban: string) => string;
export declare const germanIban: (account: number | string, bankCode?: string) => string;
export declare function rfReference(invoiceNumber: string, check?: number): string;

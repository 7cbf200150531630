ALTER TABLE `billing_profiles` ADD `leitweg_id` text;--> statement-breakpoint
ALTER TABLE `billing_profiles` ADD `direct_debit_bic` text;--> statement-breakpoint
ALTER TABLE `billing_profiles` ADD `direct_debit_mandate_signed_on` text;--> statement-breakpoint
ALTER TABLE `billing_profiles` ADD `document_language` text DEFAULT 'de' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `cancelled_on` text;
ALTER TABLE `billing_profiles` ADD `consumer` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `charges_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `dunning_state` text DEFAULT 'none' NOT NULL;
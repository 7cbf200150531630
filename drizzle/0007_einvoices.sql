CREATE TABLE `billing_profiles` (
	`customer_id` text PRIMARY KEY NOT NULL,
	`legal_name` text NOT NULL,
	`street` text NOT NULL,
	`postcode` text NOT NULL,
	`city` text NOT NULL,
	`country_code` text NOT NULL,
	`vat_id` text,
	`buyer_reference` text,
	`email` text,
	`direct_debit_iban` text,
	`direct_debit_mandate_reference` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `invoice_lines` (
	`invoice_id` text NOT NULL,
	`position` integer NOT NULL,
	`description` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit_price` integer NOT NULL,
	`net_amount` integer NOT NULL,
	`vat_category` text NOT NULL,
	`vat_percent` text NOT NULL,
	`card_order_entry_id` text,
	PRIMARY KEY(`invoice_id`, `position`),
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `invoices` ADD `seller` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `buyer` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `lines_count` integer DEFAULT 0 NOT NULL;
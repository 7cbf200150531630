CREATE TABLE `direct_debit_collections` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_date` text NOT NULL,
	`message_id` text NOT NULL,
	`transactions_count` integer NOT NULL,
	`control_sum` integer NOT NULL,
	`state` text NOT NULL,
	`creditor` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `direct_debit_collections_message` ON `direct_debit_collections` (`message_id`);--> statement-breakpoint
CREATE INDEX `direct_debit_collections_created` ON `direct_debit_collections` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `direct_debits` (
	`id` text PRIMARY KEY NOT NULL,
	`collection_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`end_to_end_id` text NOT NULL,
	`amount` integer NOT NULL,
	`sequence_type` text NOT NULL,
	`collection_date` text NOT NULL,
	`mandate_reference` text NOT NULL,
	`mandate_signed_on` text NOT NULL,
	`debtor_iban` text NOT NULL,
	`debtor` text NOT NULL,
	`debtor_bic` text,
	`original_debtor_iban` text,
	`state` text NOT NULL,
	`return_reason` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`collection_id`) REFERENCES `direct_debit_collections`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invoice_id`) REFERENCES `invoices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `direct_debits_end_to_end` ON `direct_debits` (`end_to_end_id`);--> statement-breakpoint
CREATE INDEX `direct_debits_collection` ON `direct_debits` (`collection_id`,`sequence_type`,`end_to_end_id`);--> statement-breakpoint
CREATE INDEX `direct_debits_invoice` ON `direct_debits` (`invoice_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `direct_debits_mandate` ON `direct_debits` (`mandate_reference`,`collection_date`);--> statement-breakpoint
ALTER TABLE `invoices` ADD `pending_collection` text;--> statement-breakpoint
CREATE INDEX `invoices_collectable` ON `invoices` (`due_on`) WHERE "invoices"."payment_method" = 'direct_debit' AND "invoices"."state" = 'open';--> statement-breakpoint
-- docs/api.md part 4's totals (db/schema.ts list_counts): the collections, all of them (the back office's list).
CREATE TRIGGER `direct_debit_collections_counted_insert` AFTER INSERT ON `direct_debit_collections` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('direct_debit_collections', '', '', 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;

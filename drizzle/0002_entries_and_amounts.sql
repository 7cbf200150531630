CREATE TABLE `card_order_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`voucher_owner_id` text NOT NULL,
	`card_holder_name` text NOT NULL,
	`amount` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `card_orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `card_order_entries_order_created` ON `card_order_entries` (`order_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `invoices_order`;--> statement-breakpoint
ALTER TABLE `invoices` ADD `kind` text DEFAULT 'voucher' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `net_amount` integer;--> statement-breakpoint
ALTER TABLE `invoices` ADD `gross_amount` integer;--> statement-breakpoint
ALTER TABLE `invoices` ADD `recipient` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `service_period_start` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `service_period_end` text;--> statement-breakpoint
CREATE INDEX `invoices_order_created` ON `invoices` (`order_id`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_live_voucher` ON `invoices` (`order_id`) WHERE "invoices"."kind" = 'voucher' AND "invoices"."state" <> 'cancelled';--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_order_service` ON `invoices` (`order_id`,`kind`) WHERE "invoices"."kind" <> 'voucher';--> statement-breakpoint
ALTER TABLE `card_orders` ADD `production_invoice_id` text;--> statement-breakpoint
ALTER TABLE `card_orders` ADD `production_invoice_number` text;--> statement-breakpoint
ALTER TABLE `card_orders` ADD `shipping_invoice_id` text;--> statement-breakpoint
ALTER TABLE `card_orders` ADD `shipping_invoice_number` text;--> statement-breakpoint
ALTER TABLE `card_orders` ADD `entries_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `card_orders` ADD `entries_amount` integer DEFAULT 0 NOT NULL;
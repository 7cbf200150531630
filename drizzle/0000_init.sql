CREATE TABLE `card_order_counts` (
	`customer_id` text NOT NULL,
	`state` text NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `state`)
);
--> statement-breakpoint
CREATE TABLE `card_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`submitted_at` text,
	`production_started_at` text,
	`delivered_at` text,
	`description` text,
	`invoice_reference` text,
	`cost_center` text,
	`payment_method` text NOT NULL,
	`voucher_category` text NOT NULL,
	`invoice_id` text,
	`invoice_number` text
);
--> statement-breakpoint
CREATE INDEX `card_orders_customer_created` ON `card_orders` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `card_orders_customer_state_created` ON `card_orders` (`customer_id`,`state`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`principal` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`principal`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `invoice_counts` (
	`customer_id` text NOT NULL,
	`state` text NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`customer_id`, `state`)
);
--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`number` text NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`booked_on` text NOT NULL,
	`creditor` text NOT NULL,
	`due_on` text NOT NULL,
	`paid_at` text,
	`cancellation_number` text,
	`cancelled_at` text,
	`order_id` text NOT NULL,
	`order_state` text NOT NULL,
	`reference` text,
	`cost_center` text,
	`payment_method` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `card_orders`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_number` ON `invoices` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_cancellation_number` ON `invoices` (`cancellation_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_order` ON `invoices` (`order_id`);--> statement-breakpoint
CREATE INDEX `invoices_customer_created` ON `invoices` (`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_customer_state_created` ON `invoices` (`customer_id`,`state`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `notification_tokens` (
	`owner_id` text NOT NULL,
	`device_identifier` text NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`owner_id`, `device_identifier`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_tokens_value` ON `notification_tokens` (`value`);--> statement-breakpoint
CREATE INDEX `notification_tokens_owner_created` ON `notification_tokens` (`owner_id`,`created_at`,`device_identifier`);--> statement-breakpoint
CREATE TABLE `number_sequences` (
	`series` text NOT NULL,
	`year` integer NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`series`, `year`)
);

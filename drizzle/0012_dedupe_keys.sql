ALTER TABLE `bank_transactions` ADD `content_key` text;--> statement-breakpoint
CREATE INDEX `bank_transactions_content` ON `bank_transactions` (`content_key`);--> statement-breakpoint
ALTER TABLE `direct_debits` ADD `settled_by` text;--> statement-breakpoint
-- The debits settled before settled_by was kept: the transaction of their payment (a settlement that paid
-- nothing, its invoice paid meanwhile, left none: those stay null).
UPDATE `direct_debits` SET `settled_by` = (SELECT `bank_transaction_id` FROM `payments` WHERE `payments`.`id` = `direct_debits`.`id`) WHERE `state` IN ('paid', 'returned');

-- A card order's entries_count and entries_amount (the sum of its entries' amounts, in cents) follow
-- its entries in the statement that changes them, so that no write path can let them drift.
CREATE TRIGGER `card_order_entries_insert` AFTER INSERT ON `card_order_entries` BEGIN
  UPDATE `card_orders` SET `entries_count` = `entries_count` + 1, `entries_amount` = `entries_amount` + NEW.`amount` WHERE `id` = NEW.`order_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `card_order_entries_delete` AFTER DELETE ON `card_order_entries` BEGIN
  UPDATE `card_orders` SET `entries_count` = `entries_count` - 1, `entries_amount` = `entries_amount` - OLD.`amount` WHERE `id` = OLD.`order_id`;
END;

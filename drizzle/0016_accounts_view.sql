CREATE INDEX `invoices_created` ON `invoices` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_state_created` ON `invoices` ("state" COLLATE NOCASE,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `invoices_open_dunning_created` ON `invoices` (`dunning_state`,`created_at`,`id`) WHERE "invoices"."state" = 'open';--> statement-breakpoint
CREATE INDEX `invoices_customer_open_dunning_created` ON `invoices` (`customer_id`,`dunning_state`,`created_at`,`id`) WHERE "invoices"."state" = 'open';--> statement-breakpoint
-- The accounts department's view (docs/api.md part 18) keeps its totals as every list does (part 4):
-- 'all_invoices' (scope '', filter '' or a state) counts every customer's invoices; 'dunning_invoices'
-- (scope '' or the customer) the open ones by a stored dunning state other than none; 'open_due'
-- (scope '' or the customer, filter '<due_on>/<dunning_state>') the open ones with an open amount, by
-- due day, so that the overdue list's total, which depends on today, is a sum over the days before
-- it (a row per day, never per invoice). Counted from the rows, then kept by the triggers below.
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'all_invoices', '', '', count(*) FROM `invoices` HAVING count(*) > 0;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'all_invoices', '', `state`, count(*) FROM `invoices` GROUP BY `state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'dunning_invoices', '', `dunning_state`, count(*) FROM `invoices`
  WHERE `state` = 'open' AND `dunning_state` <> 'none' GROUP BY `dunning_state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'dunning_invoices', `customer_id`, `dunning_state`, count(*) FROM `invoices`
  WHERE `state` = 'open' AND `dunning_state` <> 'none' GROUP BY `customer_id`, `dunning_state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'open_due', '', `due_on` || '/' || `dunning_state`, count(*) FROM `invoices`
  WHERE `state` = 'open' AND coalesce(`gross_amount`, 0) > `allocated_amount` GROUP BY `due_on`, `dunning_state`;
--> statement-breakpoint
INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
  SELECT 'open_due', `customer_id`, `due_on` || '/' || `dunning_state`, count(*) FROM `invoices`
  WHERE `state` = 'open' AND coalesce(`gross_amount`, 0) > `allocated_amount`
  GROUP BY `customer_id`, `due_on`, `dunning_state`;
--> statement-breakpoint
CREATE TRIGGER `invoices_accounts_counted_insert` AFTER INSERT ON `invoices` BEGIN
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('all_invoices', '', '', 1), ('all_invoices', '', NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
    SELECT 'dunning_invoices', `column1`, NEW.`dunning_state`, 1 FROM (VALUES (''), (NEW.`customer_id`))
    WHERE NEW.`state` = 'open' AND NEW.`dunning_state` <> 'none'
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
    SELECT 'open_due', `column1`, NEW.`due_on` || '/' || NEW.`dunning_state`, 1 FROM (VALUES (''), (NEW.`customer_id`))
    WHERE NEW.`state` = 'open' AND coalesce(NEW.`gross_amount`, 0) > NEW.`allocated_amount`
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_accounts_counted_state` AFTER UPDATE OF `state` ON `invoices` WHEN OLD.`state` <> NEW.`state` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'all_invoices' AND `scope` = '' AND `filter` = OLD.`state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`) VALUES ('all_invoices', '', NEW.`state`, 1)
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_dunning_counted` AFTER UPDATE OF `state`, `dunning_state` ON `invoices`
WHEN (OLD.`state` = 'open' AND OLD.`dunning_state` <> 'none') <> (NEW.`state` = 'open' AND NEW.`dunning_state` <> 'none')
  OR (OLD.`state` = 'open' AND OLD.`dunning_state` <> 'none' AND OLD.`dunning_state` <> NEW.`dunning_state`) BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1
    WHERE OLD.`state` = 'open' AND OLD.`dunning_state` <> 'none'
    AND `list` = 'dunning_invoices' AND `scope` IN ('', OLD.`customer_id`) AND `filter` = OLD.`dunning_state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
    SELECT 'dunning_invoices', `column1`, NEW.`dunning_state`, 1 FROM (VALUES (''), (NEW.`customer_id`))
    WHERE NEW.`state` = 'open' AND NEW.`dunning_state` <> 'none'
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_open_due_counted` AFTER UPDATE OF `state`, `due_on`, `dunning_state`, `gross_amount`, `allocated_amount` ON `invoices`
WHEN (OLD.`state` = 'open' AND coalesce(OLD.`gross_amount`, 0) > OLD.`allocated_amount`)
    <> (NEW.`state` = 'open' AND coalesce(NEW.`gross_amount`, 0) > NEW.`allocated_amount`)
  OR (OLD.`state` = 'open' AND coalesce(OLD.`gross_amount`, 0) > OLD.`allocated_amount`
    AND (OLD.`due_on` <> NEW.`due_on` OR OLD.`dunning_state` <> NEW.`dunning_state`)) BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1
    WHERE OLD.`state` = 'open' AND coalesce(OLD.`gross_amount`, 0) > OLD.`allocated_amount`
    AND `list` = 'open_due' AND `scope` IN ('', OLD.`customer_id`) AND `filter` = OLD.`due_on` || '/' || OLD.`dunning_state`;
  INSERT INTO `list_counts` (`list`, `scope`, `filter`, `total`)
    SELECT 'open_due', `column1`, NEW.`due_on` || '/' || NEW.`dunning_state`, 1 FROM (VALUES (''), (NEW.`customer_id`))
    WHERE NEW.`state` = 'open' AND coalesce(NEW.`gross_amount`, 0) > NEW.`allocated_amount`
    ON CONFLICT (`list`, `scope`, `filter`) DO UPDATE SET `total` = `total` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `invoices_accounts_counted_delete` AFTER DELETE ON `invoices` BEGIN
  UPDATE `list_counts` SET `total` = `total` - 1 WHERE `list` = 'all_invoices' AND `scope` = '' AND `filter` IN ('', OLD.`state`);
  UPDATE `list_counts` SET `total` = `total` - 1
    WHERE OLD.`state` = 'open' AND OLD.`dunning_state` <> 'none'
    AND `list` = 'dunning_invoices' AND `scope` IN ('', OLD.`customer_id`) AND `filter` = OLD.`dunning_state`;
  UPDATE `list_counts` SET `total` = `total` - 1
    WHERE OLD.`state` = 'open' AND coalesce(OLD.`gross_amount`, 0) > OLD.`allocated_amount`
    AND `list` = 'open_due' AND `scope` IN ('', OLD.`customer_id`) AND `filter` = OLD.`due_on` || '/' || OLD.`dunning_state`;
END;

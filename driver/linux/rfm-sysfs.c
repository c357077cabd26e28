// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only attributes of /sys/class/rfm/rfmN, one value
 * each (documented in driver/Documentation/ABI/testing/sysfs-class-rfm):
 * what a udev rule or a monitoring script wants without opening the card.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "rfm-core.h"

static struct rfm_card *to_card(struct device *dev)
{
	return container_of(dev, struct rfm_card, dev);
}

#define RFM_U32_ATTR(name, expr) \
static ssize_t name##_show(struct device *dev, struct device_attribute *attr, char *buf) \
{ \
	struct rfm_card *card = to_card(dev); \
	return sysfs_emit(buf, "%u\n", (u32)(expr)); \
} \
static DEVICE_ATTR_RO(name)

#define RFM_U64_ATTR(name, expr) \
static ssize_t name##_show(struct device *dev, struct device_attribute *attr, char *buf) \
{ \
	struct rfm_card *card = to_card(dev); \
	return sysfs_emit(buf, "%llu\n", (unsigned long long)(expr)); \
} \
static DEVICE_ATTR_RO(name)

RFM_U32_ATTR(node_id, card->node_id);
RFM_U32_ATTR(max_nodes, card->max_nodes);
RFM_U32_ATTR(card_type, card->card_type);
RFM_U64_ATTR(window_size, card->window_size);
RFM_U64_ATTR(memory_size, card->memory_size);
RFM_U64_ATTR(tx_events, atomic64_read(&card->stats.tx_events));
RFM_U64_ATTR(rx_events, atomic64_read(&card->stats.rx_events));
RFM_U64_ATTR(rx_unclaimed, atomic64_read(&card->stats.rx_unclaimed));
RFM_U64_ATTR(irqs, atomic64_read(&card->stats.irqs));
RFM_U64_ATTR(tx_timeouts, atomic64_read(&card->stats.tx_timeouts));
RFM_U64_ATTR(mailbox_errors, atomic64_read(&card->stats.mailbox_errors));
RFM_U64_ATTR(dma_bytes, atomic64_read(&card->stats.dma_bytes));
RFM_U64_ATTR(dma_errors, atomic64_read(&card->stats.dma_errors));

/* RFM_DEV_LINK_* flags in hex; reading it touches the card (5565). */
static ssize_t link_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct rfm_card *card = to_card(dev);
	u32 link = 0;
	int idx;

	idx = rfm_card_enter(card);
	if (rfm_card_gone(card)) {
		rfm_card_exit(card, idx);
		return -ENODEV;
	}
	if (card->ops->link)
		link = card->ops->link(card);
	rfm_card_exit(card, idx);
	return sysfs_emit(buf, "0x%x\n", link);
}
static DEVICE_ATTR_RO(link);

static struct attribute *rfm_card_attrs[] = {
	&dev_attr_node_id.attr,
	&dev_attr_max_nodes.attr,
	&dev_attr_card_type.attr,
	&dev_attr_window_size.attr,
	&dev_attr_memory_size.attr,
	&dev_attr_link.attr,
	&dev_attr_tx_events.attr,
	&dev_attr_rx_events.attr,
	&dev_attr_rx_unclaimed.attr,
	&dev_attr_irqs.attr,
	&dev_attr_tx_timeouts.attr,
	&dev_attr_mailbox_errors.attr,
	&dev_attr_dma_bytes.attr,
	&dev_attr_dma_errors.attr,
	NULL
};

static const struct attribute_group rfm_card_group = {
	.attrs = rfm_card_attrs,
};

const struct attribute_group *rfm_card_groups[] = {
	&rfm_card_group,
	NULL
};

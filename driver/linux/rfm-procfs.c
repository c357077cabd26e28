// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/rfm2g as the vendor's RFM2g driver writes it.
 *
 * RFM2g programs (the vendor's diagnostic utility, rfm2g_load) count the
 * boards with the line "RFM2G_DEVICE_COUNT <n>" of /proc/rfm2g and then
 * open /dev/rfm2g0..n-1; librfm2g opens /dev/rfmN for /dev/rfm2gN when no
 * vendor device node exists. So rfm.ko lists its cards here, in probe
 * order, with the per-board lines of the vendor's format:
 *
 *   RFM2G_DEVICE_COUNT <n>, a blank line, then for each board i
 *   DEVICE_i_BUS, _FUNCTION, _DEVFN, _TYPE, _REVISION,
 *   _OR_REGISTER_BASE/_SIZE, _CS_REGISTER_BASE/_SIZE, _MEMORY_BASE/_SIZE,
 *   _INTERRUPT.
 *
 * The BARs: a 5565 has its PLX registers in BAR0 (OR), its control and
 * status registers in BAR2 (CS) and its memory in BAR3; an ivshmem virtual
 * card has its registers in BAR0, MSI-X in BAR1 and its memory in BAR2.
 *
 * When /proc/rfm2g already exists (the vendor driver is loaded), nothing
 * is created: the vendor's file describes the vendor's boards.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "rfm-procfs.h"
#include "rfm5565-hw.h"

#define RFM_PROCFS_NAME "rfm2g"

struct rfm_procfs_card {
	struct list_head node;
	struct pci_dev *pdev;
};

static LIST_HEAD(rfm_procfs_cards);
static DEFINE_MUTEX(rfm_procfs_lock);
static struct proc_dir_entry *rfm_procfs_entry;

/* BAR numbers of the vendor's three regions on this kind of card. */
static void rfm_procfs_bars(const struct pci_dev *pdev, int *or, int *cs, int *mem)
{
	if (pdev->vendor == RFM5565_VENDOR) {
		*or = 0;
		*cs = 2;
		*mem = 3;
	} else {
		*or = 0;
		*cs = 1;
		*mem = 2;
	}
}

static int rfm_procfs_show(struct seq_file *m, void *v)
{
	struct rfm_procfs_card *c;
	unsigned int n = 0, i = 0;

	mutex_lock(&rfm_procfs_lock);
	list_for_each_entry(c, &rfm_procfs_cards, node)
		n++;
	seq_printf(m, "MODULE_NAME          %s\n", RFM_PROCFS_NAME);
	seq_printf(m, "RFM2G_DEVICE_COUNT   %u\n\n", n);
	list_for_each_entry(c, &rfm_procfs_cards, node) {
		struct pci_dev *pdev = c->pdev;
		int or, cs, mem, irq;

		rfm_procfs_bars(pdev, &or, &cs, &mem);
		seq_printf(m, "DEVICE_%u_BUS                %u\n", i, pdev->bus->number);
		seq_printf(m, "DEVICE_%u_FUNCTION           %u\n", i, PCI_FUNC(pdev->devfn));
		seq_printf(m, "DEVICE_%u_DEVFN              0x%08X\n", i, pdev->devfn);
		seq_printf(m, "DEVICE_%u_TYPE               0x%04X\n", i, pdev->device);
		seq_printf(m, "DEVICE_%u_REVISION           %u\n", i, pdev->revision);
		seq_printf(m, "DEVICE_%u_OR_REGISTER_BASE   0x%08llX\n", i,
			   (unsigned long long)pci_resource_start(pdev, or));
		seq_printf(m, "DEVICE_%u_OR_REGISTER_SIZE   %llu\n", i,
			   (unsigned long long)pci_resource_len(pdev, or));
		seq_printf(m, "DEVICE_%u_CS_REGISTER_BASE   0x%08llX\n", i,
			   (unsigned long long)pci_resource_start(pdev, cs));
		seq_printf(m, "DEVICE_%u_CS_REGISTER_SIZE   %llu\n", i,
			   (unsigned long long)pci_resource_len(pdev, cs));
		seq_printf(m, "DEVICE_%u_MEMORY_BASE        0x%08llX\n", i,
			   (unsigned long long)pci_resource_start(pdev, mem));
		seq_printf(m, "DEVICE_%u_MEMORY_SIZE        %llu\n", i,
			   (unsigned long long)pci_resource_len(pdev, mem));
		/* The first vector (MSI-X on ivshmem cards), else the INTx line. */
		irq = pci_irq_vector(pdev, 0);
		seq_printf(m, "DEVICE_%u_INTERRUPT          %u\n\n", i,
			   irq >= 0 ? (unsigned int)irq : pdev->irq);
		i++;
	}
	mutex_unlock(&rfm_procfs_lock);
	return 0;
}

void rfm_procfs_init(void)
{
	struct path path;

	/* The vendor driver (or someone) has it: theirs describes their boards. */
	if (!kern_path("/proc/" RFM_PROCFS_NAME, 0, &path)) {
		path_put(&path);
		pr_info("rfm: /proc/%s exists (vendor driver?); not providing it\n",
			RFM_PROCFS_NAME);
		return;
	}
	rfm_procfs_entry = proc_create_single(RFM_PROCFS_NAME, 0444, NULL, rfm_procfs_show);
	if (!rfm_procfs_entry)
		pr_warn("rfm: cannot create /proc/%s; RFM2g utilities will not find boards\n",
			RFM_PROCFS_NAME);
}

void rfm_procfs_exit(void)
{
	struct rfm_procfs_card *c, *tmp;

	if (rfm_procfs_entry)
		proc_remove(rfm_procfs_entry);
	rfm_procfs_entry = NULL;
	mutex_lock(&rfm_procfs_lock);
	list_for_each_entry_safe(c, tmp, &rfm_procfs_cards, node) {
		list_del(&c->node);
		pci_dev_put(c->pdev);
		kfree(c);
	}
	mutex_unlock(&rfm_procfs_lock);
}

void rfm_procfs_add(struct pci_dev *pdev)
{
	struct rfm_procfs_card *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return;	/* the card works; it is only missing from the listing */
	c->pdev = pci_dev_get(pdev);
	mutex_lock(&rfm_procfs_lock);
	list_add_tail(&c->node, &rfm_procfs_cards);
	mutex_unlock(&rfm_procfs_lock);
}

void rfm_procfs_remove(struct pci_dev *pdev)
{
	struct rfm_procfs_card *c, *tmp;

	mutex_lock(&rfm_procfs_lock);
	list_for_each_entry_safe(c, tmp, &rfm_procfs_cards, node) {
		if (c->pdev != pdev)
			continue;
		list_del(&c->node);
		pci_dev_put(c->pdev);
		kfree(c);
	}
	mutex_unlock(&rfm_procfs_lock);
}

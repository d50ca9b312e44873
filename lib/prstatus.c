/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * prstatus.c - the hibernating CPU's registers as an NT_PRSTATUS note, the
 * one /proc/vmcore carries per CPU (kernel/crash_core.c crash_save_cpu():
 * struct elf_prstatus, pr_reg the pt_regs), so crash's bt can start
 * somewhere ("invalid NT_PRSTATUS note" without it).
 *
 * x86_64: swsusp_arch_suspend (arch/x86/power/hibernate_asm_64.S, the
 * same in 6.1 and 6.12) stores rsp, rbp, rsi, rdi, rbx, rcx, rdx, r8-r15
 * and rflags into saved_context.regs before it calls swsusp_save(), which
 * copies memory: the image holds them. struct saved_context
 * (arch/x86/include/asm/suspend_64.h, packed) starts with struct pt_regs
 * regs (r15 .. ss, 21 words: user_regs_struct's first 21 in its order),
 * then u16 ds, es, fs, gs and kernelmode_gs_base, usermode_gs_base,
 * fs_base. Its address comes from kallsyms (lib/kallsyms.c): VMCOREINFO
 * has no SYMBOL(saved_context).
 *
 * rip is not stored. The registers are those of swsusp_arch_suspend's
 * first instruction: nothing before the store of rsp moves the stack, so
 * the saved rsp points at the return address, as at the call, and the
 * callee-saved registers are still the caller's. So rip is the address of
 * swsusp_arch_suspend itself (kallsyms again): an unwinder then finds the
 * caller at [rsp], as it would for a task stopped at that entry. cs and
 * ss are not stored either and are the kernel's own, __KERNEL_CS 0x10 and
 * __KERNEL_DS 0x18 (arch/x86/include/asm/segment.h, 64-bit). rax and
 * orig_rax are copied as the image has them (the asm uses rax for the
 * address; whatever an earlier write left, zero on a first hibernation).
 * pr_pid is 0: the hibernating task would need the per-CPU current_task.
 */
#include "kmemP.h"

#include <stdio.h>
#include <string.h>

#define X86_64_PT_REGS      21u     /* words of struct pt_regs */
#define X86_64_REG_IP       16u
#define X86_64_REG_CS       17u
#define X86_64_REG_SS       20u
#define X86_64_KERNEL_CS    0x10u
#define X86_64_KERNEL_DS    0x18u
/* struct elf_prstatus on x86_64 (include/linux/elfcore.h): pr_reg at 112,
 * 27 words (user_regs_struct), pr_fpvalid, padding to 336 */
#define X86_64_PR_REG       112u
#define X86_64_PR_FS_BASE   (X86_64_PR_REG + 21 * 8)

static void put_le(unsigned char *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static int x86_64(struct hib_kmem *km, unsigned char *d)
{
	/* regs, ds..gs, kernelmode_gs_base, usermode_gs_base, fs_base */
	unsigned char sc[X86_64_PT_REGS * 8 + 8 + 24];
	uint64_t sc_va, entry;
	unsigned int i;
	int rc;

	rc = hib_kmem_symbol(km, "saved_context", &sc_va);
	if (rc == HIB_OK)
		rc = hib_kmem_symbol(km, "swsusp_arch_suspend", &entry);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, sc_va, sc, sizeof(sc));
	if (rc)
		return rc;
	for (i = 0; i < X86_64_PT_REGS; i++)
		memcpy(d + X86_64_PR_REG + 8 * i, sc + 8 * i, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_IP, entry, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_CS, X86_64_KERNEL_CS, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_SS, X86_64_KERNEL_DS, 8);
	/* user_regs_struct: fs_base, gs_base, ds, es, fs, gs */
	memcpy(d + X86_64_PR_FS_BASE, sc + 168 + 8 + 16, 8);
	memcpy(d + X86_64_PR_FS_BASE + 8, sc + 168 + 8, 8);
	for (i = 0; i < 4; i++)
		put_le(d + X86_64_PR_FS_BASE + 16 + 8 * i, get_le(sc + 168 + 2 * i, 2), 8);
	return HIB_OK;
}

int hib_prstatus(struct hib_kmem *km, unsigned int e_machine, unsigned char *desc,
		 size_t *len)
{
	int rc;

	memset(desc, 0, HIB_PRSTATUS_MAX);
	*len = 0;
	if (e_machine != HIB_EM_X86_64)
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "no saved registers for this architecture: only x86_64's swsusp_arch_suspend leaves them in a variable (saved_context)");
	if (hib_kmem_word(km, (const unsigned char *)"\1\0\0\0\0\0\0\0") != 1 ||
	    km->img->lay.word != 8)
		return hib_seterr(km->img, HIB_ERR_UNSUPPORTED,
				  "x86_64 registers, but not a little-endian 64-bit image");
	rc = x86_64(km, desc);
	if (rc)
		return rc;
	*len = HIB_PRSTATUS_X86_64;
	return HIB_OK;
}

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
 * rip is not stored. The note holds the state resume continues from:
 * restore_registers (same file) loads rsp and the rest from saved_context,
 * zeroes rax and returns, so its ret pops [saved rsp] (nothing before the
 * store of rsp moved the stack: that word is swsusp_arch_suspend's return
 * address) and the resumed kernel goes on in the caller, at that address,
 * with rsp 8 higher and the callee-saved registers as stored. So rip is
 * the word at the saved rsp, rsp that plus 8, rax 0. An unwinder starts in
 * hibernation_snapshot() then, where the kernel's unwind data (ORC) is:
 * swsusp_arch_suspend is hand-written asm objtool skips, and a note whose
 * rip was its entry left drgn with one unnamed frame. cs and
 * ss are not stored either and are the kernel's own, __KERNEL_CS 0x10 and
 * __KERNEL_DS 0x18 (arch/x86/include/asm/segment.h, 64-bit). orig_rax is
 * copied as the image has it.
 *
 * pr_pid is the CPU's number + 1, as QEMU's dump-guest-memory writes it for
 * memory taken from a running kernel, and not crash_save_cpu()'s pid of
 * current: drgn finds the note of a CPU that way when VMCOREINFO has no
 * CRASHTIME (stack_trace.c; with CRASHTIME it reads the kernel's own
 * crash_notes instead, zeros in a kernel that never crashed). The CPU is
 * the one hibernation left online (freeze_secondary_cpus(): CPU 0 unless
 * it was offline), the lowest bit of __cpu_online_mask; CPU 0 where
 * kallsyms lacks that symbol.
 */
#include "kmemP.h"

#include <stdio.h>
#include <string.h>

#define X86_64_PT_REGS      21u     /* words of struct pt_regs */
#define X86_64_REG_RAX      10u
#define X86_64_REG_IP       16u
#define X86_64_REG_SP       19u
#define X86_64_REG_CS       17u
#define X86_64_REG_SS       20u
#define X86_64_KERNEL_CS    0x10u
#define X86_64_KERNEL_DS    0x18u
/* struct elf_prstatus on x86_64 (include/linux/elfcore.h): pr_reg at 112,
 * 27 words (user_regs_struct), pr_fpvalid, padding to 336 */
#define X86_64_PR_PID       32u     /* after si_signo/code/errno, cursig, sigpend, sighold */
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

static unsigned int online_cpu(struct hib_kmem *km)
{
	unsigned char w[8];
	uint64_t va, m;
	unsigned int cpu;

	if (hib_kmem_symbol(km, "__cpu_online_mask", &va) != HIB_OK ||
	    hib_kmem_read_virt(km, va, w, sizeof(w)) != HIB_OK)
		return 0;
	m = get_le(w, 8);
	for (cpu = 0; cpu < 64 && !(m >> cpu & 1); cpu++)
		;
	return cpu < 64 ? cpu : 0;
}

static int x86_64(struct hib_kmem *km, unsigned char *d)
{
	/* regs, ds..gs, kernelmode_gs_base, usermode_gs_base, fs_base */
	unsigned char sc[X86_64_PT_REGS * 8 + 8 + 24];
	unsigned char ret[8];
	uint64_t sc_va, sp;
	unsigned int i;
	int rc;

	rc = hib_kmem_symbol(km, "saved_context", &sc_va);
	if (rc == HIB_OK)
		rc = hib_kmem_read_virt(km, sc_va, sc, sizeof(sc));
	if (rc)
		return rc;
	sp = get_le(sc + 8 * X86_64_REG_SP, 8);
	rc = hib_kmem_read_virt(km, sp, ret, sizeof(ret));
	if (rc) {
		char why[256];

		snprintf(why, sizeof(why), "%.255s", km->img->err);
		return hib_seterr(km->img, rc,
				  "saved_context's rsp 0x%llx: no return address to resume at: %.200s",
				  (unsigned long long)sp, why);
	}
	for (i = 0; i < X86_64_PT_REGS; i++)
		memcpy(d + X86_64_PR_REG + 8 * i, sc + 8 * i, 8);
	put_le(d + X86_64_PR_PID, online_cpu(km) + 1, 4);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_RAX, 0, 8);
	memcpy(d + X86_64_PR_REG + 8 * X86_64_REG_IP, ret, 8);
	put_le(d + X86_64_PR_REG + 8 * X86_64_REG_SP, sp + 8, 8);
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

/*
 * log_internal.h - what logline.c shares with logparse.c inside src/log.
 */
#ifndef RS_LOG_INTERNAL_H
#define RS_LOG_INTERNAL_H

#include "robotscan.h"

/* Splits r->request (`METHOD SP TARGET [SP PROTOCOL]`) into method, target
 * and protocol; flags RS_LOGREC_BAD_REQUEST when it is not such a line. */
void rs_logline_split_request(rs_logrec *r);

#endif /* RS_LOG_INTERNAL_H */

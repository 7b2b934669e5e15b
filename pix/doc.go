// Package pix holds the pure parts of a Pix instant-payment checkout: the
// Brazilian tax identifiers (CPF, and CNPJ in both its numeric and its 2026
// alphanumeric form) with their check digits, E.164 phone numbers, the EMV
// "BR Code" payload a payer's bank app reads (copia e cola) with its
// CRC16/CCITT-FALSE, and the QR code image and terminal drawing of it.
//
// It knows nothing of storage or HTTP, so the store validates checkout input
// with it and the server and CLI draw the same code.
package pix

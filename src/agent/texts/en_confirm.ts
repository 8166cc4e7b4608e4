/**
 * The confirmation page's texts in English (part of the catalog in `en.ts`).
 * @module
 */
import type { BG_CONFIRM } from "./bg_confirm.ts";

/** The English texts of the confirmation page: one for every key of {@link BG_CONFIRM}. */
export const EN_CONFIRM: { readonly [K in keyof typeof BG_CONFIRM]: string } = {
  "confirm.already_confirmed_reports":
    "This batch was already confirmed for reports{eiks}. It now also asks to:",
  "confirm.already_confirmed_to_file":
    "This batch was already confirmed to file: {what}{eiks}. It now also asks to:",
  "confirm.as_the_files_declare": "As the files declare",
  "confirm.batch": "Batch",
  "confirm.batch_scope":
    "For {minutes} minutes after you confirm, requests of this batch from the same integrator and page run without asking again, in the chosen sender's name, only when they repeat a request shown here exactly: the same declaration or report, for the same company and period, with the same files (the same content) or folder. Anything else — another company, another period, another declaration or report, another or a partial set of files — opens this page again, for what is new only.",
  "confirm.company_eik": "Company (EIK)",
  "confirm.confirm": "Confirm",
  "confirm.confirm_and_read": "Confirm and read",
  "confirm.confirm_the_sender": "Confirm the sender",
  "confirm.confirmed": "Confirmed.",
  "confirm.confirmed_you_can_close": "Confirmed. You can close this tab.",
  "confirm.countdown_after": "s; then the request is declined automatically.",
  "confirm.countdown_before": "Time left:",
  "confirm.decline": "Decline",
  "confirm.decline_batch_for":
    "Declining, or letting the time run out, refuses the batch for {minutes} minutes.",
  "confirm.decline_batch_now":
    "Declining, or letting the time run out, refuses the batch: nothing is signed or filed.",
  "confirm.decline_request_now":
    "Declining, or letting the time run out, refuses the request: nothing is signed or filed.",
  "confirm.declined_nothing_was_signed": "Declined: nothing was signed.",
  "confirm.declined_only_what_was":
    "Declined: only what was new is refused; what you confirmed before stands.",
  "confirm.declined_the_whole_batch": "Declined: the whole batch is refused.",
  "confirm.declining_refuses_only_what":
    "Declining refuses only what is new; what you confirmed before stands.",
  "confirm.details": "Details",
  "confirm.files": "Files",
  "confirm.files_2": "Files",
  "confirm.files_sent_by_the": "Files sent by the page",
  "confirm.for_the_period": "period {period}",
  "confirm.from_page": "From page",
  "confirm.from_the_file": "(from the file)",
  "confirm.keep_tab_open": "Keep this tab open: the result appears here after the check.",
  "confirm.keep_tab_open_pin":
    "Keep this tab open: the result or the PIN step appears here after the check.",
  "confirm.new_company": "New company",
  "confirm.no_batch": "— (no batch)",
  "confirm.not_a_qes": "not a QES",
  "confirm.nothing_signed": "Nothing was signed or sent to the NRA.",
  "confirm.nothing_signed_no_pin": "Nothing was signed or sent to the NRA, and no PIN was asked.",
  "confirm.not_bound": "— (not bound to a page)",
  "confirm.nra": "(NRA)",
  "confirm.path_hidden": "The path holds hidden or direction-changing characters: {hidden}.",
  "confirm.path_other_form":
    "The page sent this path in another form (stepping up through parent folders); shown above is what the agent will actually read.",
  "confirm.path_other_form_hidden":
    "The page sent this path in another form (stepping up through parent folders and with hidden characters {hidden}); shown above is what the agent will actually read.",
  "confirm.period": "Period",
  "confirm.read": "Read",
  "confirm.refused_the_file_did": "Refused: the file did not pass its check",
  "confirm.requests": "Requests",
  "confirm.sender": "Sender",
  "confirm.sign_and_file": "Sign and file",
  "confirm.signature_pin": "Signature PIN",
  "confirm.signed_you_can_close": "Signed. You can close this tab.",
  "confirm.step_1_of_2": "Step 1 of 2: consent",
  "confirm.step_2_of_2": "Step 2 of 2: sign with the PIN",
  "confirm.title_confirm": "Confirm the sender",
  "confirm.title_checking": "Checking the files",
  "confirm.title_decided": "Confirmation",
  "confirm.receipt": "Receipt",
  "confirm.test_mode_nothing_is": "Test mode: nothing is filed with the NRA.",
  "confirm.test_profile": "(test profile)",
  "confirm.the_agent_is_reading": "The agent is reading and checking the files…",
  "confirm.the_agent_reads_these":
    "The agent reads these files and folders only after you confirm; nothing has been read yet.",
  "confirm.the_confirmation_covers_this":
    "The confirmation covers this request only; the next request asks again.",
  "confirm.the_files_passed_their": "The files passed their checks; the PIN step follows…",
  "confirm.the_files_were_read":
    "The files were read and checked: this is the declaration, company and period being filed.",
  "confirm.the_files_were_read_2":
    "The files were read and checked; nothing more is asked. You can close this tab.",
  "confirm.the_pin_is_not":
    "The PIN is not asked now: the agent first reads and checks the files, then shows you what it read and asks for the PIN. If a file is not the declaration it is named for, the request is refused and no PIN is asked.",
  "confirm.the_pin_stays_in":
    "The PIN stays in this agent's memory for this batch only; it is never stored or sent to the web page.",
  "confirm.this_confirmation_is_no":
    "This confirmation is no longer waiting: it was decided, timed out, or the program that asked went away. You can close this tab.",
  "confirm.verb_file": "file",
  "confirm.verb_read": "read",
  "confirm.warnings": "Warnings",
  "confirm.warnings_do_not_stop":
    "Warnings do not stop the filing; if something is wrong, decline and correct the files.",
  "confirm.what_is_asked": "What is asked",
  "confirm.what_to_do": "What to do: {todo}",
  "confirm.who_asks": "Who asks",
  "confirm.will_be_read": "Will be read",
  "confirm.you_can_close_this": "You can close this tab.",
  "confirm.you_confirm_only_what": "You confirm only what is new; declining refuses only that.",
  "confirm.remote_approve_in_app": "Approve the signature in your provider's app",
  "confirm.remote_part":
    "The provider accepts a limited number of signatures at once: this is approval {part} of {parts}.",
  "confirm.remote_waiting": "The agent is waiting for the approval…",
  "confirm.remote_open_provider": "Open the provider's page",
  "confirm.remote_declining":
    "If you decline at the provider or do not approve within 5 minutes, nothing is filed.",
  "confirm.remote_approved": "The signature is approved. Filing goes on.",
  "confirm.remote_declined": "The signature was not approved. Nothing was filed.",
  "confirm.remote_unknown": "This approval is no longer waiting.",
  "confirm.who_eik": "EIK",
  "confirm.who_verified": "verified by the service's operator",
  "confirm.who_presents_as": "presents itself as",
  "confirm.who_unverified": "not verified",
  "confirm.who_unverified_warning":
    "The name was not verified by the service's operator: anyone can sign up under any name. Confirm only if you know the page above.",
  "confirm.otp_title": "Type the signature's one-time code",
  "confirm.otp_sent": "The provider sent a code to your phone (SMS or notification).",
  "confirm.otp_device": "The code is shown in the provider's app or device.",
  "confirm.otp_label": "One-time code",
  "confirm.otp_note": "The code goes to the provider only; the agent neither keeps nor logs it.",
  "confirm.otp_sign": "Sign and file",
  "confirm.otp_decline": "Decline",
  "confirm.otp_declining":
    "If you decline or do not type the code within 5 minutes, nothing is filed.",
  "confirm.otp_given":
    "The code was passed to the provider. Filing goes on only if it is right; a wrong code stops everything and nothing is filed.",
};

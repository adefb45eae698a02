import ArgumentParser

struct CloudNotes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudnotes",
        abstract: "Collaborative notes for the terminal, synced and shared through a CloudKit-like cloud.",
        subcommands: [
            OpenFrontEnd.self,
            NewPost.self, ListPosts.self, ShowPost.self, EditPost.self, ResolveConflict.self, DeletePost.self, DiscardRefused.self,
            CommentOnPost.self,
            ExportPosts.self, ImportPosts.self,
            ShowHistory.self, RestoreVersion.self, ShowTrash.self, RestoreDeleted.self, ShowNotices.self,
            ShowInvitations.self, DeclineInvitation.self,
            AskForAccess.self, ListAccessRequests.self, ApproveRequest.self, DenyRequest.self, BlockRequest.self,
            Notebooks.self, NewNotebook.self, RenameNotebook.self, DeleteNotebook.self, MovePost.self, SharePost.self, AcceptShare.self, PostParticipants.self,
            RemovePostParticipant.self, SetPostPermission.self, StopSharingPost.self, LeaveShare.self,
            SyncNow.self, Status.self, SignIn.self,
            CloudCommand.self,
        ],
        defaultSubcommand: OpenFrontEnd.self
    )
}

/// `cloudnotes cloud …`: a window into the cloud, like Apple's cktool and CloudKit Console.
struct CloudCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud",
        abstract: "Inspect and change the cloud directly: accounts, zones, records, changes, shares, faults.",
        subcommands: [
            InitCloud.self, CreateAccount.self, Accounts.self,
            CreateZone.self, DeleteZone.self, Zones.self,
            SaveRecord.self, GetRecord.self, DeleteRecord.self,
            Changes.self,
            ShareRecord.self, Shares.self, Invite.self, Metadata.self, Accept.self, Participants.self,
            RemoveParticipant.self, SetPermission.self, SetPublic.self, StopSharing.self, Leave.self,
            OneTimeLink.self, RequestAccess.self, AccessRequests.self, Approve.self, Deny.self, Block.self,
            Dump.self, Faults.self, Purge.self, RetentionCommand.self, Check.self, Migrate.self,
            Serve.self, Enrol.self, Devices.self, RevokeDevice.self, IssueWebToken.self, RevokeWebToken.self,
            OperatorCode.self, OperatorSignInCommand.self, Operators.self, RevokeOperator.self,
        ]
    )
}
